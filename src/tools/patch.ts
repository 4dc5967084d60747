import { mkdir, rename, stat, unlink } from "node:fs/promises";
import { dirname, isAbsolute, relative } from "node:path";
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { z } from "zod";
import type { CardContent, Location } from "../agent/events.ts";
import { toolLocations, toolStartContent, toolTitle } from "./display.ts";
import { fuzzyFindAndReplace, noMatchHint } from "./fuzzy-match.ts";
import description from "./patch.md" with { type: "text" };
import { resolveToolPath } from "./paths.ts";
import { defineTool, type ToolContext, type ToolResult } from "./types.ts";
import { operationPaths, parseV4A, planV4A, type FileState, type PatchPlan } from "./v4a.ts";

// Models often send null for fields they do not use, so optionals accept null too.
const params = z.object({
  mode: z.enum(["replace", "patch"]).nullish().describe('"replace" (default): old_string → new_string in one file; "patch": a V4A patch'),
  path: z.string().nullish().describe("replace mode: the file to edit (relative to the session cwd, or absolute)"),
  old_string: z.string().nullish().describe("replace mode: the exact text to find (include context so it is unique)"),
  new_string: z.string().nullish().describe("replace mode: the replacement text (may be empty to delete)"),
  replace_all: z.boolean().nullish().describe("replace mode: replace every occurrence instead of requiring a unique match"),
  patch: z.string().nullish().describe("patch mode: the V4A patch text (*** Begin Patch … *** End Patch)"),
});
export type PatchParams = z.infer<typeof params>;
type Params = PatchParams;

type FileEdit = { abs: string; oldText: string | null; newText: string | null };

const fail = (error: string): ToolResult => ({ output: JSON.stringify({ success: false, error }), failed: true });
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

function denied(reason: string, files: number): ToolResult {
  const why = reason ? ` (${reason})` : "";
  const what = files === 1 ? "the file was NOT modified" : "no files were modified";
  return fail(`Edit approval denied by the user${why}; ${what}. Do not retry this edit unless the user asks for it.`);
}

/** Diff header path: relative to the session cwd when inside it, else absolute. */
function headerPath(cwd: string, abs: string): string {
  const rel = relative(cwd, abs);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : abs;
}

function unifiedDiff(cwd: string, edit: FileEdit): string {
  const p = headerPath(cwd, edit.abs);
  const prefixed = (side: "a" | "b"): string => (isAbsolute(p) ? p : `${side}/${p}`);
  return createTwoFilesPatch(
    edit.oldText === null ? "/dev/null" : prefixed("a"),
    edit.newText === null ? "/dev/null" : prefixed("b"),
    edit.oldText ?? "",
    edit.newText ?? "",
    undefined,
    undefined,
    { headerOptions: FILE_HEADERS_ONLY },
  );
}

/** Asks once for every file; the result when denied, else null. */
async function approve(ctx: ToolContext, edits: FileEdit[], args: Params): Promise<ToolResult | null> {
  const outcome = await ctx.approver.approveEdit(
    { toolName: "patch", files: edits.map((e) => ({ path: e.abs, oldText: e.oldText, newText: e.newText ?? "" })), rawInput: args },
    ctx.toolCallId,
    ctx.signal,
  );
  if (!outcome.approved) return denied(outcome.reason, edits.length);
  // Cancellation after approval must not write.
  ctx.signal.throwIfAborted();
  return null;
}

function success(ctx: ToolContext, edits: FileEdit[], lists: Omit<PatchPlan, "changes" | "effects">, note: string): ToolResult {
  const output = {
    success: true,
    diff: edits.map((e) => unifiedDiff(ctx.cwd, e)).join(""),
    files_modified: lists.filesModified,
    files_created: lists.filesCreated,
    files_deleted: lists.filesDeleted,
    ...(note ? { message: note } : {}),
  };
  const content: CardContent[] = edits.map((e) => ({ type: "diff", path: e.abs, oldText: e.oldText, newText: e.newText ?? "" }));
  return { output: JSON.stringify(output), content };
}

async function runReplace(args: Params, ctx: ToolContext): Promise<ToolResult> {
  if (!args.path) return fail("path required");
  if (args.old_string == null || args.new_string == null) return fail("old_string and new_string required");
  const abs = resolveToolPath(ctx.cwd, args.path);
  let oldText: string;
  try {
    oldText = await ctx.fs.readText(abs);
  } catch (e) {
    return fail(`Failed to read file: ${args.path} (${message(e)})`);
  }
  const result = fuzzyFindAndReplace(oldText, args.old_string, args.new_string, args.replace_all === true);
  if (result.error !== null || result.count === 0) {
    const error = result.error ?? `Could not find match for old_string in ${args.path}`;
    return fail(error.startsWith("Could not find") ? error + noMatchHint(oldText, args.old_string) : error);
  }
  const edit: FileEdit = { abs, oldText, newText: result.content };
  const refusal = await approve(ctx, [edit], args);
  if (refusal) return refusal;
  try {
    await ctx.fs.writeText(abs, result.content);
  } catch (e) {
    return fail(`Failed to write ${args.path}: ${message(e)}`);
  }
  const n = result.count;
  const note = `Replaced ${n} occurrence${n === 1 ? "" : "s"} (${result.strategy ?? "exact"} match)`;
  return success(ctx, [edit], { filesModified: [args.path], filesCreated: [], filesDeleted: [] }, note);
}

/** What a path holds now: read through ctx.fs (editor buffers), existence from the disk. */
async function fileState(ctx: ToolContext, abs: string): Promise<FileState> {
  try {
    const info = await stat(abs);
    if (!info.isFile()) return { kind: "unreadable", error: `not a regular file: ${abs}` };
  } catch (e) {
    if (e instanceof Error && "code" in e && e.code === "ENOENT") return { kind: "missing" };
    return { kind: "unreadable", error: message(e) };
  }
  try {
    return { kind: "text", text: await ctx.fs.readText(abs) };
  } catch (e) {
    return { kind: "unreadable", error: message(e) };
  }
}

async function runPatch(args: Params, ctx: ToolContext): Promise<ToolResult> {
  if (!args.patch) return fail("patch content required");
  const parsed = parseV4A(args.patch);
  if (!parsed.ok) return fail(parsed.error);
  const keyOf = (p: string): string => resolveToolPath(ctx.cwd, p);
  const initial = new Map<string, FileState>();
  for (const p of operationPaths(parsed.operations)) {
    const abs = keyOf(p);
    if (!initial.has(abs)) initial.set(abs, await fileState(ctx, abs));
  }
  const planned = planV4A(parsed.operations, initial, keyOf);
  if (!planned.ok) return fail(planned.error);
  const { plan } = planned;
  const edits: FileEdit[] = plan.changes.map((c) => ({ abs: c.key, oldText: c.oldText, newText: c.newText }));
  if (edits.length === 0) return success(ctx, [], plan, "Patch contained no changes; nothing was modified.");
  const refusal = await approve(ctx, edits, args);
  if (refusal) return refusal;

  // Validation passed, so failures here are races with other writers; keep going and report them all.
  const errors: string[] = [];
  for (const effect of plan.effects) {
    try {
      if (effect.kind === "write") await ctx.fs.writeText(effect.key, effect.text);
      else if (effect.kind === "delete") await unlink(effect.key);
      else {
        await mkdir(dirname(effect.toKey), { recursive: true });
        await rename(effect.fromKey, effect.toKey);
      }
    } catch (e) {
      const verb = effect.kind === "write" ? "write" : effect.kind;
      const path = effect.kind === "move" ? `${effect.from} -> ${effect.to}` : effect.path;
      errors.push(`Failed to ${verb} ${path}: ${message(e)}`);
    }
  }
  if (errors.length > 0) {
    return fail(`Apply phase failed (state may be inconsistent — run \`git diff\` to assess):\n${errors.map((e) => `  • ${e}`).join("\n")}`);
  }
  const n = edits.length;
  return success(ctx, edits, plan, `Patch applied to ${n} file${n === 1 ? "" : "s"}`);
}

/** Locations: the path in replace mode; every file the patch names in patch mode. */
function patchLocations(args: Params, cwd: string): Location[] {
  if (args.mode !== "patch" || !args.patch) return toolLocations("patch", present(args), cwd);
  const parsed = parseV4A(args.patch);
  return parsed.ok ? operationPaths(parsed.operations).map((p) => ({ path: resolveToolPath(cwd, p) })) : [];
}

/** The display helpers read args like Python's dict.get: an explicit null would print as "None". */
function present(args: Params): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined));
}

export const patchTool = defineTool<Params>({
  name: "patch",
  description,
  parameters: params,
  kind: "edit",
  title: (args) => toolTitle("patch", present(args)),
  locations: patchLocations,
  startContent: (args) => toolStartContent("patch", present(args)),
  run: (args, ctx) => (args.mode === "patch" ? runPatch(args, ctx) : runReplace(args, ctx)),
});
