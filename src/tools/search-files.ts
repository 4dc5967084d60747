import { stat } from "node:fs/promises";
import { basename } from "node:path";
import ignore from "ignore";
import { z } from "zod";
import { toolLocations, toolStartContent, toolTitle } from "./display.ts";
import { resolveToolPath } from "./paths.ts";
import { comparePaths, searchContentBuiltin, walkFiles, MAX_COLLECTED_MATCHES, type ContentSearch, type SearchSpec } from "./search-builtin.ts";
import { findRg, listFilesRg, RgPatternError, searchContentRg } from "./search-rg.ts";
import { defineTool, type ToolResult } from "./types.ts";
import description from "./search-files.md" with { type: "text" };

export const DEFAULT_SEARCH_LIMIT = 50;
const MAX_SEARCH_LIMIT = 500;
const MAX_CONTEXT = 20;

export const searchParams = z.object({
  pattern: z.string().describe("Regex for content search; glob, regex or plain text for file-name search"),
  target: z.enum(["content", "files"]).optional().describe("content (default): search inside files; files: search file names"),
  path: z.string().optional().describe("Directory or file to search (default: the session cwd)"),
  file_glob: z.string().optional().describe("Only files matching this glob, e.g. '*.ts' or 'src/**/*.py'; '!glob' excludes"),
  context: z.number().int().min(0).optional().describe("Lines of context before and after each match (content search)"),
  limit: z.number().int().min(1).optional().describe("Maximum results to return (default 50)"),
  offset: z.number().int().min(0).optional().describe("Results to skip, for paging (default 0)"),
  case_sensitive: z.boolean().optional().describe("Default: true for content search, false for file-name search"),
  output_mode: z
    .enum(["content", "files_with_matches", "count"])
    .optional()
    .describe("content (default): matching lines; files_with_matches: file paths only; count: matches per file"),
});
export type SearchArgs = z.infer<typeof searchParams>;

export type SearchBackend = "auto" | "rg" | "builtin";
export type SearchOptions = { backend?: SearchBackend; rgPath?: string | null };

const result = (value: unknown, failed = false): ToolResult => ({ output: JSON.stringify(value), ...(failed ? { failed } : {}) });

/** JS regex with Unicode semantics when the pattern allows it (closer to rg), plain otherwise. */
export function compileRegex(pattern: string, caseSensitive: boolean): RegExp | { error: string } {
  const flags = caseSensitive ? "" : "i";
  try {
    return new RegExp(pattern, `${flags}u`);
  } catch {
    try {
      return new RegExp(pattern, flags);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      return { error: `Invalid regex pattern '${pattern}': ${why}. Escape special characters (\\( \\[ \\. \\*) to search for them literally.` };
    }
  }
}

/** File-name matcher: a regex when the pattern uses regex-only syntax, a glob when it has wildcards, else a substring. */
function nameMatcher(pattern: string, caseSensitive: boolean): ((rel: string) => boolean) | { error: string } {
  if (!pattern) return () => true;
  const subject = (rel: string) => (pattern.includes("/") ? rel : basename(rel));
  if (/[\\^$()|+]/.test(pattern)) {
    const re = compileRegex(pattern, caseSensitive);
    return re instanceof RegExp ? (rel) => re.test(subject(rel)) : re;
  }
  if (/[*?[{]/.test(pattern)) {
    const ig = ignore({ ignorecase: !caseSensitive }).add(pattern);
    return (rel) => ig.ignores(rel);
  }
  const needle = caseSensitive ? pattern : pattern.toLowerCase();
  return (rel) => (caseSensitive ? subject(rel) : subject(rel).toLowerCase()).includes(needle);
}

function page<T>(items: T[], offset: number, limit: number): { shown: T[]; truncated: boolean } {
  return { shown: items.slice(offset, offset + limit), truncated: offset + limit < items.length };
}

const moreHint = (offset: number, limit: number, total: number) =>
  `Showing ${Math.min(total, offset + 1)}-${Math.min(total, offset + limit)} of ${total}. Use offset=${offset + limit} for more, or narrow the search.`;

async function runContent(spec: SearchSpec, opts: SearchOptions): Promise<ContentSearch> {
  const rg = opts.backend === "builtin" ? null : opts.rgPath !== undefined ? opts.rgPath : findRg();
  if (opts.backend === "rg" && !rg) throw new Error("rg backend requested but ripgrep is not installed");
  if (!rg) return searchContentBuiltin(spec);
  try {
    return await searchContentRg(spec, rg);
  } catch (e) {
    // A pattern JS accepts but Rust's regex does not (look-around, backreferences): search without rg.
    if (e instanceof RgPatternError) return searchContentBuiltin(spec);
    throw e;
  }
}

/** The search itself, shared by the tool, the tests and the benchmark. */
export async function searchFiles(args: SearchArgs, cwd: string, signal: AbortSignal, opts: SearchOptions = {}): Promise<ToolResult> {
  const root = resolveToolPath(cwd, args.path ?? ".");
  let rootIsFile: boolean;
  try {
    rootIsFile = (await stat(root)).isFile();
  } catch {
    return result({ error: `Path not found: ${root}` }, true);
  }
  const target = args.target ?? "content";
  const limit = Math.min(args.limit ?? DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT);
  const offset = args.offset ?? 0;
  const base = { root, rootIsFile, fileGlob: args.file_glob || undefined, signal };

  if (target === "files") {
    const matches = nameMatcher(args.pattern, args.case_sensitive ?? false);
    if (!(matches instanceof Function)) return result(matches, true);
    const rg = opts.backend === "builtin" ? null : opts.rgPath !== undefined ? opts.rgPath : findRg();
    const all = rg ? await listFilesRg(base, rg) : await walkFiles(base);
    const files = all.filter(matches).sort(comparePaths);
    const { shown, truncated } = page(files, offset, limit);
    return result({ total_count: files.length, files: shown, truncated, ...(truncated ? { hint: moreHint(offset, limit, files.length) } : {}) });
  }

  const regex = compileRegex(args.pattern, args.case_sensitive ?? true);
  if (!(regex instanceof RegExp)) return result(regex, true);
  const context = Math.min(args.context ?? 0, MAX_CONTEXT);
  const found = await runContent({ ...base, pattern: args.pattern, regex, caseSensitive: args.case_sensitive ?? true, context }, opts);
  const files = found.files.sort((a, b) => comparePaths(a.path, b.path));
  const note = found.capped
    ? { note: `Search stopped after ${MAX_COLLECTED_MATCHES} matches; counts are lower bounds. Narrow the pattern, path or file_glob.` }
    : {};

  const mode = args.output_mode ?? "content";
  if (mode === "files_with_matches") {
    const paths = files.map((f) => f.path);
    const { shown, truncated } = page(paths, offset, limit);
    return result({ total_count: paths.length, files: shown, truncated, ...(truncated ? { hint: moreHint(offset, limit, paths.length) } : {}), ...note });
  }
  if (mode === "count") {
    const counts = files.map((f) => ({ path: f.path, count: f.hits.length }));
    const { shown, truncated } = page(counts, offset, limit);
    const totalMatches = counts.reduce((n, c) => n + c.count, 0);
    return result({ total_count: counts.length, total_matches: totalMatches, counts: shown, truncated, ...note });
  }
  const flat = files.flatMap((f) =>
    f.hits.map((h) => ({
      path: f.path,
      line: h.line,
      content: h.text,
      ...(context > 0 ? { context_before: h.before ?? [], context_after: h.after ?? [] } : {}),
    })),
  );
  const { shown, truncated } = page(flat, offset, limit);
  return result({ total_count: flat.length, matches: shown, truncated, ...(truncated ? { hint: moreHint(offset, limit, flat.length) } : {}), ...note });
}

export const searchFilesTool = defineTool<SearchArgs>({
  name: "search_files",
  description,
  parameters: searchParams,
  kind: "search",
  title: (args) => toolTitle("search_files", args),
  locations: (args, cwd) => toolLocations("search_files", args, cwd),
  startContent: (args) => toolStartContent("search_files", args),
  run: (args, ctx) => searchFiles(args, ctx.cwd, ctx.signal),
});
