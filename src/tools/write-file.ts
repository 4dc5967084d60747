import { stat } from "node:fs/promises";
import { z } from "zod";
import { toolLocations, toolStartContent, toolTitle } from "./display.ts";
import { resolveToolPath } from "./paths.ts";
import { defineTool, type ToolResult } from "./types.ts";
import description from "./write-file.md" with { type: "text" };

const params = z.object({
  path: z.string().min(1).describe("File to write (relative to the session cwd, or absolute)"),
  content: z.string().describe("The complete new file content"),
});
type Params = z.infer<typeof params>;

const fail = (error: string): ToolResult => ({ output: JSON.stringify({ success: false, error }), failed: true });

/** Current text of the target: null when it does not exist yet; an error string for a non-file. */
async function currentText(abs: string, read: (p: string) => Promise<string>): Promise<{ text: string | null } | { error: string }> {
  try {
    const info = await stat(abs);
    if (!info.isFile()) return { error: `Cannot edit non-file path: ${abs}` };
  } catch (e) {
    if (e instanceof Error && "code" in e && e.code === "ENOENT") return { text: null };
    return { error: `Cannot read ${abs}: ${e instanceof Error ? e.message : String(e)}` };
  }
  try {
    return { text: await read(abs) };
  } catch (e) {
    return { error: `Failed to read file: ${abs} (${e instanceof Error ? e.message : String(e)})` };
  }
}

export const writeFileTool = defineTool<Params>({
  name: "write_file",
  description,
  parameters: params,
  kind: "edit",
  title: (args) => toolTitle("write_file", args),
  locations: (args, cwd) => toolLocations("write_file", args, cwd),
  startContent: (args) => toolStartContent("write_file", args),
  async run(args, ctx) {
    const abs = resolveToolPath(ctx.cwd, args.path);
    const current = await currentText(abs, (p) => ctx.fs.readText(p));
    if ("error" in current) return fail(current.error);
    const oldText = current.text;

    // Ask before any side effect; cancellation rejects and propagates.
    const outcome = await ctx.approver.approveEdit(
      { toolName: "write_file", files: [{ path: abs, oldText, newText: args.content }], rawInput: args },
      ctx.toolCallId,
      ctx.signal,
    );
    if (!outcome.approved) {
      const why = outcome.reason ? `: ${outcome.reason}` : "";
      return fail(`Edit approval denied${why}. The file was not modified: ${abs}`);
    }
    ctx.signal.throwIfAborted();

    try {
      await ctx.fs.writeText(abs, args.content);
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e));
    }
    return {
      output: JSON.stringify({ success: true, path: abs, bytes_written: Buffer.byteLength(args.content, "utf8"), created: oldText === null }),
      content: [{ type: "diff", path: abs, oldText, newText: args.content }],
    };
  },
});
