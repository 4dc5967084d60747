// The built-in search: a directory walk with ripgrep's default filtering (hidden files skipped, .gitignore
// files at every level and .git/info/exclude honoured, binary files skipped) and JS regex matching.
// search-rg.ts must produce the same records; the shared pieces live here.
import { existsSync, readFileSync, statSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";

/** Files larger than this are skipped (rg: --max-filesize 50M). */
export const MAX_FILE_BYTES = 50 * 1024 * 1024;
/** Matched/context line text is cut here so one minified line cannot flood the result. */
export const MAX_LINE_CHARS = 500;
/** Stop collecting after this many matches; the result then says the count is a lower bound. */
export const MAX_COLLECTED_MATCHES = 20_000;

export type SearchSpec = {
  /** Absolute search root: a directory, or a single file. */
  root: string;
  rootIsFile: boolean;
  /** The regex source as the model sent it, and the compiled JS version of it. */
  pattern: string;
  regex: RegExp;
  caseSensitive: boolean;
  fileGlob?: string;
  context: number;
  signal: AbortSignal;
};

export type LineHit = { line: number; text: string; before?: string[]; after?: string[] };
export type FileHits = { path: string; hits: LineHit[] };
export type ContentSearch = { files: FileHits[]; capped: boolean };

/** Same shaping for both backends: strip the terminator, a BOM on line 1, and cap the length. */
export function cleanLine(raw: string, lineNo: number): string {
  let text = raw.endsWith("\n") ? raw.slice(0, -1) : raw;
  if (text.endsWith("\r")) text = text.slice(0, -1);
  if (lineNo === 1 && text.startsWith("\uFEFF")) text = text.slice(1);
  return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}… [line truncated]` : text;
}

/** rg -g semantics (gitignore-style glob relative to the root; a leading `!` excludes). */
export function globFilter(glob: string | undefined): ((rel: string) => boolean) | undefined {
  if (!glob) return undefined;
  const negated = glob.startsWith("!");
  const ig = ignore({ ignorecase: false }).add(negated ? glob.slice(1) : glob);
  return (rel) => ig.ignores(rel) !== negated;
}

export function toPosix(p: string): string {
  return sep === "/" ? p : p.split(sep).join("/");
}

export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

type Matcher = { base: string; ig: Ignore };

function readIgnoreText(file: string): string | undefined {
  try {
    const text = readFileSync(file, "utf8");
    return text.trim() ? text : undefined;
  } catch {
    return undefined;
  }
}

function readIgnoreFile(file: string): Ignore | undefined {
  const text = readIgnoreText(file);
  return text === undefined ? undefined : ignore({ ignorecase: false }).add(text);
}

/**
 * The rules of an ancestor's ignore file re-based onto `prefix` (the root, relative to that ancestor).
 * Used when the ancestor ignores the root itself: rg still searches an explicitly given directory and
 * applies the ancestor's rules to each path alone, while `ignore` would drop everything via the parent.
 * Floating patterns apply as they are; anchored ones only if they start with the prefix.
 */
function rebaseRules(text: string, prefix: string): Ignore {
  const kept: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (!line || line.startsWith("#")) continue;
    const neg = line.startsWith("!") ? "!" : "";
    const body = neg ? line.slice(1) : line;
    const core = body.endsWith("/") ? body.slice(0, -1) : body;
    if (!core.includes("/") || core.startsWith("**/")) kept.push(line);
    else {
      const anchored = core.startsWith("/") ? body.slice(1) : body;
      if (anchored.startsWith(`${prefix}/`)) kept.push(`${neg}/${anchored.slice(prefix.length + 1)}`);
    }
  }
  return ignore({ ignorecase: false }).add(kept);
}

/**
 * Ignore rules that apply from above the root: .git/info/exclude of the enclosing repository and the
 * .gitignore files of the root's ancestors, up to the repository root (or the filesystem root outside a repo).
 */
function ancestorMatchers(root: string): Matcher[] {
  const chain: string[] = [];
  let repoRoot: string | undefined;
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    chain.push(dir);
    if (existsSync(join(dir, ".git"))) {
      repoRoot = dir;
      break;
    }
    if (dirname(dir) === dir) break;
  }
  if (existsSync(join(root, ".git"))) {
    repoRoot = root;
    chain.length = 0;
  }
  const matchers: Matcher[] = [];
  if (repoRoot) {
    const text = readIgnoreText(join(repoRoot, ".git", "info", "exclude"));
    const prefix = toPosix(relative(repoRoot, root));
    if (text !== undefined) {
      const ig = ignore({ ignorecase: false }).add(text);
      const rebase = prefix !== "" && ig.ignores(`${prefix}/`);
      matchers.push(rebase ? { base: root, ig: rebaseRules(text, prefix) } : { base: repoRoot, ig });
    }
  }
  for (const dir of chain.reverse()) {
    const text = readIgnoreText(join(dir, ".gitignore"));
    if (text === undefined) continue;
    const ig = ignore({ ignorecase: false }).add(text);
    const prefix = toPosix(relative(dir, root));
    if (ig.ignores(`${prefix}/`)) matchers.push({ base: root, ig: rebaseRules(text, prefix) });
    else matchers.push({ base: dir, ig });
  }
  return matchers;
}

/** Deepest ignore file with an opinion wins, as in git and rg. */
function isIgnored(matchers: Matcher[], abs: string, isDir: boolean): boolean {
  for (let i = matchers.length - 1; i >= 0; i--) {
    const m = matchers[i];
    if (!m) continue;
    const rel = toPosix(relative(m.base, abs));
    const r = m.ig.test(isDir ? `${rel}/` : rel);
    if (r.ignored) return true;
    if (r.unignored) return false;
  }
  return false;
}

/** Every searchable file under the root (relative, posix), in no particular order. */
export async function walkFiles(spec: Pick<SearchSpec, "root" | "rootIsFile" | "fileGlob" | "signal">): Promise<string[]> {
  if (spec.rootIsFile) return [basename(spec.root)];
  const keep = globFilter(spec.fileGlob);
  const negatedGlob = spec.fileGlob?.startsWith("!") ? keep : undefined;
  const out: string[] = [];
  const visit = async (dir: string, rel: string, inherited: Matcher[]): Promise<void> => {
    spec.signal.throwIfAborted();
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return; // unreadable directory: rg skips it too
    }
    const own = entries.some((e) => e.name === ".gitignore" && e.isFile()) ? readIgnoreFile(join(dir, ".gitignore")) : undefined;
    const matchers = own ? [...inherited, { base: dir, ig: own }] : inherited;
    const subdirs: Promise<void>[] = [];
    for (const e of entries) {
      const hidden = e.name.startsWith("."); // includes .git
      const abs = join(dir, e.name);
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (hidden || isIgnored(matchers, abs, true)) continue;
        if (negatedGlob && !negatedGlob(`${childRel}/`)) continue;
        subdirs.push(visit(abs, childRel, matchers));
      } else if (e.isFile()) {
        // As with rg -g: a file matching a whitelist glob is searched even if hidden or gitignored.
        if (keep && !negatedGlob) {
          if (keep(childRel)) out.push(childRel);
          continue;
        }
        if (hidden || isIgnored(matchers, abs, false)) continue;
        if (keep && !keep(childRel)) continue;
        out.push(childRel);
      }
      // symlinks are not followed (rg's default)
    }
    await Promise.all(subdirs);
  };
  await visit(spec.root, "", ancestorMatchers(spec.root));
  return out;
}

/** Bytes → text, or undefined for binary (a NUL anywhere: rg drops such files) and oversized files. */
function decode(buf: Uint8Array): string | undefined {
  if (buf.length > MAX_FILE_BYTES || buf.indexOf(0) !== -1) return undefined;
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(buf);
}

/** Matching lines of one file's text, with `context` lines either side. */
export function matchLines(text: string, regex: RegExp, context: number): LineHit[] {
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const hits: LineHit[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    regex.lastIndex = 0;
    if (!regex.test(line.endsWith("\r") ? line.slice(0, -1) : line)) continue;
    const hit: LineHit = { line: i + 1, text: cleanLine(line, i + 1) };
    if (context > 0) {
      hit.before = [];
      hit.after = [];
      for (let j = Math.max(0, i - context); j < i; j++) hit.before.push(cleanLine(lines[j] ?? "", j + 1));
      for (let j = i + 1; j <= Math.min(lines.length - 1, i + context); j++) hit.after.push(cleanLine(lines[j] ?? "", j + 1));
    }
    hits.push(hit);
  }
  return hits;
}

async function readSearchable(abs: string): Promise<string | undefined> {
  try {
    const size = statSync(abs).size;
    if (size > MAX_FILE_BYTES) return undefined;
    return decode(await readFile(abs));
  } catch {
    return undefined;
  }
}

/** Content search over the walk, a few files in flight at a time. */
export async function searchContentBuiltin(spec: SearchSpec): Promise<ContentSearch> {
  const files = await walkFiles(spec);
  const base = spec.rootIsFile ? dirname(spec.root) : spec.root;
  // Whole-file prefilter: a file whose text never matches cannot have a matching line.
  const prefilter = new RegExp(spec.regex.source, `${spec.regex.flags.replace(/[gy]/g, "")}m`);
  const results: FileHits[] = [];
  let collected = 0;
  let capped = false;
  let next = 0;
  const worker = async () => {
    while (next < files.length && !capped) {
      spec.signal.throwIfAborted();
      const rel = files[next++];
      if (rel === undefined) break;
      const text = await readSearchable(join(base, rel));
      if (text === undefined) continue;
      // With CRLF endings `$` cannot match before "\r" in the whole text, so only prefilter LF files.
      if (!text.includes("\r") && !prefilter.test(text)) continue;
      const hits = matchLines(text, spec.regex, spec.context);
      if (hits.length === 0) continue;
      results.push({ path: rel, hits });
      collected += hits.length;
      if (collected >= MAX_COLLECTED_MATCHES) capped = true;
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return { files: results, capped };
}
