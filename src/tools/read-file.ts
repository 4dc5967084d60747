import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { z } from "zod";
import { toolStartContent, toolTitle } from "./display.ts";
import { resolveToolPath } from "./paths.ts";
import { defineTool, type ToolResult } from "./types.ts";
import description from "./read-file.md" with { type: "text" };

export const DEFAULT_READ_LIMIT = 500;
export const MAX_READ_LIMIT = 2000;
/** Per-call character budget for `content` (~100 KB), so one read cannot flood the context. */
export const MAX_READ_CHARS = 100_000;
const MAX_LINE_CHARS = 2000;

const BINARY_EXTENSIONS = new Set(
  (
    "png jpg jpeg gif bmp ico webp tif tiff psd heic avif pdf zip gz tgz bz2 xz 7z rar tar zst lz4 jar war " +
    "exe dll so dylib o a lib obj class pyc pyo wasm node mp3 mp4 m4a wav flac ogg oga avi mov mkv webm " +
    "ttf otf woff woff2 eot sqlite sqlite3 db doc docx xls xlsx ppt pptx odt ods dmg iso bin"
  ).split(" "),
);

const params = z.object({
  path: z.string().min(1).describe("File to read (relative to the session cwd, or absolute)"),
  offset: z.number().int().min(0).optional().describe("1-based line number to start at (default 1)"),
  limit: z.number().int().min(1).optional().describe("Maximum number of lines to return (default 500, max 2000)"),
});
type Params = z.infer<typeof params>;

const json = (value: unknown, failed = false): ToolResult => ({ output: JSON.stringify(value), ...(failed ? { failed } : {}) });

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/** Up to 3 names in the same directory that look like what the model meant (case, extension, typo). */
export async function similarFiles(absPath: string): Promise<string[]> {
  const dir = dirname(absPath);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const want = basename(absPath).toLowerCase();
  const wantStem = want.slice(0, want.length - extname(want).length);
  const scored: [number, string][] = [];
  for (const name of names) {
    const lower = name.toLowerCase();
    const stem = lower.slice(0, lower.length - extname(lower).length);
    const dist = editDistance(lower, want);
    let score: number | undefined;
    if (lower === want) score = 0;
    else if (stem === wantStem && stem) score = 1;
    else if (want.length >= 3 && (lower.includes(want) || want.includes(lower))) score = 2;
    else if (dist <= Math.max(2, Math.floor(want.length / 3))) score = 3 + dist;
    if (score !== undefined) scored.push([score, name]);
  }
  scored.sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0));
  return scored.slice(0, 3).map(([, name]) => join(dir, name));
}

function formatLines(lines: string[], start: number, limit: number): { content: string; last: number } {
  const out: string[] = [];
  let chars = 0;
  let last = start - 1;
  const end = Math.min(lines.length, start - 1 + limit);
  for (let i = start - 1; i < end; i++) {
    let line = lines[i] ?? "";
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.length > MAX_LINE_CHARS) line = `${line.slice(0, MAX_LINE_CHARS)}... [line truncated, ${line.length} chars]`;
    const row = `${String(i + 1).padStart(6)}|${line}`;
    if (out.length > 0 && chars + row.length + 1 > MAX_READ_CHARS) break;
    out.push(row);
    chars += row.length + 1;
    last = i + 1;
  }
  return { content: out.join("\n"), last };
}

export const readFileTool = defineTool<Params>({
  name: "read_file",
  description,
  parameters: params,
  kind: "read",
  title: (args) => toolTitle("read_file", args),
  locations: (args, cwd) => [{ path: resolveToolPath(cwd, args.path), line: args.offset || 1 }],
  startContent: (args) => toolStartContent("read_file", args),
  async run(args, ctx) {
    const abs = resolveToolPath(ctx.cwd, args.path);
    const ext = extname(abs).slice(1).toLowerCase();
    if (BINARY_EXTENSIONS.has(ext)) {
      return json({ error: `Binary file ${abs} (.${ext}) not shown: read_file only reads text files.` }, true);
    }
    let text: string;
    try {
      text = await ctx.fs.readText(abs);
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      if (!existsSync(abs)) {
        const similar = await similarFiles(abs);
        return json({ error: `File not found: ${abs}`, ...(similar.length ? { similar_files: similar } : {}) }, true);
      }
      return json({ error: e instanceof Error ? e.message : String(e) }, true);
    }
    if (text.slice(0, 8192).includes("\0")) {
      return json({ error: `Binary file ${abs} (contains NUL bytes) not shown: read_file only reads text files.` }, true);
    }

    const lines = text === "" ? [] : text.split("\n");
    if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    const total = lines.length;
    const fileSize = Buffer.byteLength(text, "utf8");
    const start = Math.max(1, args.offset ?? 1);
    const limit = Math.min(args.limit ?? DEFAULT_READ_LIMIT, MAX_READ_LIMIT);
    if (start > total && total > 0) {
      return json({
        content: "",
        total_lines: total,
        file_size: fileSize,
        truncated: false,
        hint: `offset=${start} is past the end of the file (${total} lines). Use an offset between 1 and ${total}.`,
      });
    }
    const { content, last } = formatLines(lines, start, limit);
    const truncated = last < total;
    return json({
      content,
      total_lines: total,
      file_size: fileSize,
      truncated,
      ...(truncated ? { hint: `Use offset=${last + 1} to continue reading (showing ${start}-${last} of ${total} lines)` } : {}),
    });
  },
});
