// The ripgrep backend: same records as search-builtin.ts, from `rg --json`. Flags pin rg to the filtering the
// built-in walk implements (no .ignore/.rgignore, no global gitignore, .gitignore honoured outside git repos too).
import { basename, dirname } from "node:path";
import { z } from "zod";
import { cleanLine, MAX_COLLECTED_MATCHES, type ContentSearch, type FileHits, type LineHit, type SearchSpec } from "./search-builtin.ts";

const COMMON_FLAGS = [
  "--no-config",
  "--no-messages",
  "--no-ignore-dot",
  "--no-ignore-global",
  "--no-require-git",
  "--max-filesize",
  "50M",
];

let cachedRg: string | null | undefined;

/** Path of `rg` on PATH (looked up once). */
export function findRg(): string | null {
  if (cachedRg === undefined) cachedRg = Bun.which("rg");
  return cachedRg;
}

/** rg rejected the pattern (its regex dialect differs from JS): the caller falls back to the built-in search. */
export class RgPatternError extends Error {}

const textOrBytes = z.union([z.object({ text: z.string() }), z.object({ bytes: z.string() })]);
const rgMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("begin"), data: z.object({ path: textOrBytes }) }),
  z.object({ type: z.literal("end"), data: z.object({ path: textOrBytes, binary_offset: z.number().nullable().optional() }) }),
  z.object({ type: z.literal("match"), data: z.object({ lines: textOrBytes, line_number: z.number().nullable() }) }),
  z.object({ type: z.literal("context"), data: z.object({ lines: textOrBytes, line_number: z.number().nullable() }) }),
  z.object({ type: z.literal("summary"), data: z.unknown() }),
]);

const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

function decodeField(v: z.infer<typeof textOrBytes>): string {
  return "text" in v ? v.text : utf8.decode(Buffer.from(v.bytes, "base64"));
}

function stripDotSlash(p: string): string {
  return p.startsWith("./") ? p.slice(2) : p;
}

/** Where rg runs and what it is pointed at, so its paths come out relative to the root. */
function target(spec: Pick<SearchSpec, "root" | "rootIsFile">): { cwd: string; path: string } {
  return spec.rootIsFile ? { cwd: dirname(spec.root), path: basename(spec.root) } : { cwd: spec.root, path: "." };
}

async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of stream) {
    buf += decoder.decode(chunk, { stream: true });
    let nl = buf.indexOf("\n");
    while (nl !== -1) {
      yield buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      nl = buf.indexOf("\n");
    }
  }
  buf += decoder.decode();
  if (buf) yield buf;
}

/** Per-match context from the lines rg printed (it merges overlapping context, so rebuild each window). */
function withContext(matches: LineHit[], printed: Map<number, string>, context: number): LineHit[] {
  if (context <= 0) return matches;
  return matches.map((m) => {
    const before: string[] = [];
    const after: string[] = [];
    for (let n = Math.max(1, m.line - context); n < m.line; n++) {
      const t = printed.get(n);
      if (t !== undefined) before.push(t);
    }
    for (let n = m.line + 1; n <= m.line + context; n++) {
      const t = printed.get(n);
      if (t !== undefined) after.push(t);
    }
    return { ...m, before, after };
  });
}

export async function searchContentRg(spec: SearchSpec, rgPath: string): Promise<ContentSearch> {
  const { cwd, path } = target(spec);
  const argv = [rgPath, "--json", "--crlf", ...COMMON_FLAGS, spec.caseSensitive ? "--case-sensitive" : "--ignore-case"];
  if (spec.context > 0) argv.push("--context", String(spec.context));
  if (spec.fileGlob) argv.push("--glob", spec.fileGlob);
  argv.push("--regexp", spec.pattern, "--", path);
  const proc = Bun.spawn(argv, { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe", signal: spec.signal });

  const files: FileHits[] = [];
  let current: { matches: LineHit[]; printed: Map<number, string> } | undefined;
  let collected = 0;
  let capped = false;
  for await (const line of lines(proc.stdout)) {
    if (!line) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = rgMessage.safeParse(raw);
    if (!parsed.success) continue;
    const msg = parsed.data;
    if (msg.type === "begin") current = { matches: [], printed: new Map() };
    else if ((msg.type === "match" || msg.type === "context") && current && msg.data.line_number !== null) {
      const n = msg.data.line_number;
      const text = cleanLine(decodeField(msg.data.lines), n);
      current.printed.set(n, text);
      if (msg.type === "match") current.matches.push({ line: n, text });
    } else if (msg.type === "end" && current) {
      // A NUL found after some matches: rg stops and reports binary_offset; the file counts as binary.
      if (msg.data.binary_offset == null && current.matches.length > 0) {
        files.push({ path: stripDotSlash(decodeField(msg.data.path)), hits: withContext(current.matches, current.printed, spec.context) });
        collected += current.matches.length;
      }
      current = undefined;
      if (collected >= MAX_COLLECTED_MATCHES) {
        capped = true;
        proc.kill();
        break;
      }
    }
  }
  const exitCode = await proc.exited;
  spec.signal.throwIfAborted();
  // stderr is only fatal errors under --no-messages (small), so it is read once rg has exited.
  if (exitCode === 2 && files.length === 0) {
    const stderr = await new Response(proc.stderr).text();
    if (/regex|parse error|look-?around|backreference/i.test(stderr)) throw new RgPatternError(stderr.trim());
  }
  return { files, capped };
}

/** All searchable files (rg --files), relative and posix. The name filter is applied by the caller. */
export async function listFilesRg(spec: Pick<SearchSpec, "root" | "rootIsFile" | "fileGlob" | "signal">, rgPath: string): Promise<string[]> {
  const { cwd, path } = target(spec);
  const argv = [rgPath, "--files", "--null", ...COMMON_FLAGS];
  if (spec.fileGlob) argv.push("--glob", spec.fileGlob);
  argv.push("--", path);
  const proc = Bun.spawn(argv, { cwd, stdin: "ignore", stdout: "pipe", stderr: "ignore", signal: spec.signal });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  spec.signal.throwIfAborted();
  return out.split("\0").filter(Boolean).map(stripDotSlash);
}
