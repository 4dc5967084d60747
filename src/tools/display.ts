// What a tool card shows (§11.3–§11.5, §12). Works from (name, args, result string) alone so live turns and
// history replay render identically.
import type { CardContent, Location, PlanEntry, ToolKind } from "../agent/events.ts";
import { isPolished, toolKind as kindOf } from "./display-kinds.ts";
import { COMPLETION_FORMATTERS, formatWebExtractResult } from "./display-formatters.ts";
import { startContentFor, rawInputFor, type EditDiff } from "./display-start.ts";
import { formatGenericStructured } from "./display-structured.ts";
import { titleFor } from "./display-titles.ts";
import { coerceArgs, isRecord, parseJsonLoose, pyStr, truncateText, truthy } from "./display-util.ts";
import { resolveToolPath } from "./paths.ts";

export { coerceArgs } from "./display-util.ts";
export { TOOL_KIND_MAP, POLISHED_TOOLS } from "./display-kinds.ts";
export type { EditDiff } from "./display-start.ts";

const text = (t: string): CardContent => ({ type: "text", text: t });

export function toolKind(name: string): ToolKind {
  return kindOf(name);
}

export function toolTitle(name: string, args: unknown): string {
  try {
    return titleFor(name, coerceArgs(args));
  } catch {
    return name || "tool";
  }
}

/** `[{path, line}]` when the args name a path (line = offset or line); the path is made absolute against cwd. */
export function toolLocations(_name: string, args: unknown, cwd: string): Location[] {
  const a = coerceArgs(args);
  if (typeof a.path !== "string" || !a.path) return [];
  const line = truthy(a.offset) ? a.offset : a.line;
  const loc: Location = { path: resolveToolPath(cwd, a.path) };
  if (typeof line === "number" && Number.isInteger(line) && line > 0) loc.line = line;
  return [loc];
}

/** Content for the start card; undefined = no content block. `editDiff` when the edit is auto-approved. */
export function toolStartContent(name: string, args: unknown, opts?: { editDiff?: EditDiff }): CardContent[] | undefined {
  try {
    return startContentFor(name, coerceArgs(args), opts?.editDiff);
  } catch {
    return undefined;
  }
}

/** rawInput for the start card: only unknown (non-polished) tools echo their arguments. */
export function toolRawInput(name: string, args: unknown): unknown {
  return rawInputFor(name, coerceArgs(args));
}

/**
 * Conservative failure detection (§12.4): plain text mentioning "error" stays completed; only the executor's
 * exception wrapper and structured failures (`success:false`, `ok:false`, non-zero exit code, polished `{"error"}`) fail.
 */
export function isFailedResult(name: string, result: string): boolean {
  if (result.startsWith("Error executing tool '")) return true;
  const data = parseJsonLoose(result);
  if (!isRecord(data)) return false;
  const exitCode = "exit_code" in data ? data.exit_code : data.returncode;
  if (data.success === false || data.ok === false) return true;
  if (typeof exitCode === "number" && Number.isInteger(exitCode) && exitCode !== 0) return true;
  return isPolished(name) && truthy(data.error) && !truthy(data.content);
}

export type ToolCompletion = { status: "completed" | "failed"; content: CardContent[]; rawOutput?: unknown };

/** The final card (§11.4). An empty `content` means there is nothing to add (web_extract success). */
export function toolCompletion(name: string, args: unknown, result: string, opts?: { failed?: boolean }): ToolCompletion {
  const a = coerceArgs(args);
  const status = opts?.failed === true || isFailedResult(name, result) ? "failed" : "completed";
  let content: CardContent[];
  try {
    if (name === "web_extract") {
      const t = formatWebExtractResult(name, result, a);
      content = t ? [text(t)] : [];
    } else {
      const format = COMPLETION_FORMATTERS[name];
      const t = format ? format(name, result, a) : formatGenericStructured(name, result, isPolished(name));
      content = [text(t || truncateText(result))];
    }
  } catch {
    content = [text(truncateText(result))];
  }
  const data = parseJsonLoose(result);
  const structured = Array.isArray(data) || isRecord(data);
  return isPolished(name) || structured ? { status, content } : { status, content, rawOutput: result };
}

const PLAN_STATUS: Record<string, PlanEntry["status"]> = { pending: "pending", in_progress: "in_progress", completed: "completed" };

/** Plan entries from a todo result (§11.5); null when the result has no `todos` list. */
export function planFromTodoResult(result: string): PlanEntry[] | null {
  const data = parseJsonLoose(result);
  if (!isRecord(data) || !Array.isArray(data.todos)) return null;
  const entries: PlanEntry[] = [];
  for (const item of data.todos) {
    if (!isRecord(item)) continue;
    const content = pyStr(truthy(item.content) ? item.content : truthy(item.id) ? item.id : "").trim();
    if (!content) continue;
    const raw = typeof item.status === "string" ? item.status : "";
    if (raw === "cancelled") entries.push({ content: `[cancelled] ${content}`, priority: "medium", status: "completed" });
    else entries.push({ content, priority: "medium", status: PLAN_STATUS[raw] ?? "pending" });
  }
  return entries;
}

/** Unified diff text → diff blocks, one per `---`/`+++` pair (a/ b/ prefixes stripped, /dev/null = no path). */
export function unifiedDiffToBlocks(diffText: string): CardContent[] {
  const out: CardContent[] = [];
  let oldPath: string | null = null;
  let newPath: string | null = null;
  let oldLines: string[] = [];
  let newLines: string[] = [];
  const flush = () => {
    const path = newPath && newPath !== "/dev/null" ? newPath : oldPath;
    if (path && path !== "/dev/null") {
      const p = path.trim();
      out.push({
        type: "diff",
        path: p.startsWith("a/") || p.startsWith("b/") ? p.slice(2) : p,
        oldText: oldLines.length ? oldLines.join("\n") : null,
        newText: newLines.join("\n"),
      });
    }
    oldPath = newPath = null;
    oldLines = [];
    newLines = [];
  };
  for (const line of diffText.split(/\r?\n/)) {
    if (line.startsWith("--- ")) {
      flush();
      oldPath = line.slice(4).trim();
    } else if (line.startsWith("+++ ")) newPath = line.slice(4).trim();
    else if (line.startsWith("@@") || (oldPath === null && newPath === null)) continue;
    else if (line.startsWith("+")) newLines.push(line.slice(1));
    else if (line.startsWith("-")) oldLines.push(line.slice(1));
    else if (line.startsWith(" ")) {
      oldLines.push(line.slice(1));
      newLines.push(line.slice(1));
    }
  }
  flush();
  return out;
}
