/**
 * Hermes' fuzzy find-and-replace (behaviour doc §20.4): nine matching strategies tried in order,
 * the first that finds anything wins. Cheap strategies scan line arrays with early exits; the
 * similarity-based ones (block_anchor, context_aware) score only candidate windows, behind
 * length/character-count upper bounds, so a 20,000-line file stays in the low milliseconds.
 */
import { quickRatio, ratio, realQuickRatio, similarAtLeast } from "./similarity.ts";

export type FuzzyResult = { content: string; count: number; strategy: string | null; error: string | null };

type Span = [start: number, end: number];

/** Lazily computed views of the file content, shared by the strategies of one call. */
class ContentView {
  readonly lines: string[];
  readonly lineStarts: number[];
  private trimmedCache: string[] | undefined;
  private leftTrimmedCache: string[] | undefined;
  private unicodeCache: { text: string; trimmedLines: string[] } | undefined;

  constructor(readonly text: string) {
    this.lines = text.split("\n");
    this.lineStarts = new Array<number>(this.lines.length);
    let pos = 0;
    for (let i = 0; i < this.lines.length; i++) {
      this.lineStarts[i] = pos;
      pos += (this.lines[i] ?? "").length + 1;
    }
  }
  get trimmed(): string[] {
    return (this.trimmedCache ??= this.lines.map((l) => l.trim()));
  }
  get leftTrimmed(): string[] {
    return (this.leftTrimmedCache ??= this.lines.map((l) => l.trimStart()));
  }
  get unicode(): { text: string; trimmedLines: string[] } {
    if (!this.unicodeCache) {
      const text = normalizeUnicode(this.text);
      this.unicodeCache = { text, trimmedLines: text === this.text ? this.trimmed : text.split("\n").map((l) => l.trim()) };
    }
    return this.unicodeCache;
  }
  /** From the start of line `first` to the end of line `last`, its line break (\n or \r\n) excluded. */
  span(first: number, last: number): Span {
    const line = this.lines[last] ?? "";
    const end = (this.lineStarts[last] ?? 0) + line.length - (line.endsWith("\r") ? 1 : 0);
    return [this.lineStarts[first] ?? 0, end];
  }
}

const UNICODE_MAP: Record<string, string> = {
  "\u201c": '"',
  "\u201d": '"',
  "\u2018": "'",
  "\u2019": "'",
  "\u2014": "--",
  "\u2013": "-",
  "\u2026": "...",
  "\u00a0": " ",
};
const UNICODE_RE = /[\u201c\u201d\u2018\u2019\u2014\u2013\u2026\u00a0]/g;

export function normalizeUnicode(text: string): string {
  return text.replace(UNICODE_RE, (c) => UNICODE_MAP[c] ?? c);
}

/** Every occurrence, overlapping starts included (Hermes advanced one character per hit). */
function findAll(haystack: string, needle: string): Span[] {
  const out: Span[] = [];
  for (let pos = haystack.indexOf(needle); pos !== -1; pos = haystack.indexOf(needle, pos + 1)) {
    out.push([pos, pos + needle.length]);
  }
  return out;
}

/** Blocks of lines whose normalised form equals the normalised pattern lines. */
function findLineBlocks(view: ContentView, lines: string[], pattern: string[]): Span[] {
  const out: Span[] = [];
  const n = pattern.length;
  for (let i = 0; i + n <= lines.length; i++) {
    let j = 0;
    while (j < n && lines[i + j] === pattern[j]) j++;
    if (j === n) out.push(view.span(i, i + n - 1));
  }
  return out;
}

function exact(view: ContentView, pattern: string): Span[] {
  return findAll(view.text, pattern);
}

function lineTrimmed(view: ContentView, pattern: string): Span[] {
  return findLineBlocks(view, view.trimmed, pattern.split("\n").map((l) => l.trim()));
}

function whitespaceNormalized(view: ContentView, pattern: string): Span[] {
  const norm = (s: string): string => s.replace(/[ \t]+/g, " ");
  const normPattern = norm(pattern);
  const normText = norm(view.text);
  const hits = findAll(normText, normPattern);
  if (hits.length === 0) return [];
  // For each normalised char: where it starts and ends in the original (a collapsed run spans it all),
  // so a match ending in a collapsed space absorbs the whole trailing run.
  const text = view.text;
  const starts = new Int32Array(normText.length);
  const ends = new Int32Array(normText.length);
  let k = 0;
  for (let i = 0; i < text.length; k++) {
    const c = text.charCodeAt(i);
    starts[k] = i;
    if (c === 32 || c === 9) while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
    else i++;
    ends[k] = i;
  }
  return hits.map(([s, e]) => [starts[s] ?? 0, ends[e - 1] ?? 0]);
}

function indentationFlexible(view: ContentView, pattern: string): Span[] {
  return findLineBlocks(view, view.leftTrimmed, pattern.split("\n").map((l) => l.trimStart()));
}

function unescapeBasic(s: string): string {
  return s.replaceAll("\\n", "\n").replaceAll("\\t", "\t").replaceAll("\\r", "\r");
}

function escapeNormalized(view: ContentView, pattern: string): Span[] {
  const unescaped = unescapeBasic(pattern);
  return unescaped === pattern ? [] : findAll(view.text, unescaped);
}

function trimmedBoundary(view: ContentView, pattern: string): Span[] {
  const p = pattern.split("\n");
  const n = p.length;
  const first = (p[0] ?? "").trim();
  const last = (p[n - 1] ?? "").trim();
  const out: Span[] = [];
  const { lines, trimmed } = view;
  for (let i = 0; i + n <= lines.length; i++) {
    if (trimmed[i] !== first) continue;
    if (n > 1 && trimmed[i + n - 1] !== last) continue;
    let j = 1;
    while (j < n - 1 && lines[i + j] === p[j]) j++;
    if (j >= n - 1) out.push(view.span(i, i + n - 1));
  }
  return out;
}

function unicodeNormalized(view: ContentView, pattern: string): Span[] {
  const normPattern = normalizeUnicode(pattern);
  const normText = view.unicode.text;
  if (normText === view.text && normPattern === pattern) return [];
  let hits = findAll(normText, normPattern);
  if (hits.length === 0) {
    const normView = normText === view.text ? view : new ContentView(normText);
    hits = lineTrimmed(normView, normPattern);
  }
  if (hits.length === 0 || normText === view.text) return hits;
  // Map normalised offsets back: origToNorm is monotonic; a match starting inside an expansion is dropped.
  const text = view.text;
  const origToNorm = new Int32Array(text.length + 1);
  let np = 0;
  for (let i = 0; i < text.length; i++) {
    origToNorm[i] = np;
    np += UNICODE_MAP[text.charAt(i)]?.length ?? 1;
  }
  origToNorm[text.length] = np;
  const lowerBound = (v: number): number => {
    let lo = 0;
    let hi = text.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((origToNorm[mid] ?? 0) < v) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const out: Span[] = [];
  for (const [s, e] of hits) {
    const start = lowerBound(s);
    if (start >= text.length || origToNorm[start] !== s) continue;
    out.push([start, lowerBound(e)]);
  }
  return out;
}

function blockAnchor(view: ContentView, pattern: string): Span[] {
  const p = normalizeUnicode(pattern).split("\n");
  const n = p.length;
  if (n < 2) return [];
  const first = (p[0] ?? "").trim();
  const last = (p[n - 1] ?? "").trim();
  const lines = view.unicode.trimmedLines;
  const candidates: number[] = [];
  for (let i = 0; i + n <= lines.length; i++) {
    if (lines[i] === first && lines[i + n - 1] === last) candidates.push(i);
  }
  if (candidates.length === 0) return [];
  const threshold = candidates.length === 1 ? 0.5 : 0.7;
  const normLines = view.unicode.text === view.text ? view.lines : view.unicode.text.split("\n");
  const patternMiddle = p.slice(1, -1).join("\n");
  const out: Span[] = [];
  for (const i of candidates) {
    const similar = n <= 2 || similarAtLeast(normLines.slice(i + 1, i + n - 1).join("\n"), patternMiddle, threshold);
    if (similar) out.push(view.span(i, i + n - 1));
  }
  return out;
}

function contextAware(view: ContentView, pattern: string): Span[] {
  const p = pattern.split("\n").map((l) => l.trim());
  const n = p.length;
  const lines = view.trimmed;
  const out: Span[] = [];
  const needed = n * 0.5;
  for (let i = 0; i + n <= lines.length; i++) {
    let hits = 0;
    for (let j = 0; j < n; j++) {
      // Give up on this window once the remaining lines cannot reach the 50 % bar.
      if (hits + (n - j) < needed) break;
      if (similarAtLeast(p[j] ?? "", lines[i + j] ?? "", 0.8)) hits++;
    }
    if (hits >= needed) out.push(view.span(i, i + n - 1));
  }
  return out;
}

const STRATEGIES: [string, (view: ContentView, pattern: string) => Span[]][] = [
  ["exact", exact],
  ["line_trimmed", lineTrimmed],
  ["whitespace_normalized", whitespaceNormalized],
  ["indentation_flexible", indentationFlexible],
  ["escape_normalized", escapeNormalized],
  ["trimmed_boundary", trimmedBoundary],
  ["unicode_normalized", unicodeNormalized],
  ["block_anchor", blockAnchor],
  ["context_aware", contextAware],
];

export const STRATEGY_NAMES: readonly string[] = STRATEGIES.map(([name]) => name);

/**
 * One strategy's raw match spans. For table tests: indentation_flexible and trimmed_boundary are
 * shadowed in the chain (any block they match, line_trimmed matched first), as in Hermes.
 */
export function findMatches(strategy: string, content: string, pattern: string): [number, number][] {
  const find = STRATEGIES.find(([name]) => name === strategy)?.[1];
  if (!find) throw new Error(`unknown strategy ${strategy}`);
  return find(new ContentView(content), pattern);
}

export function fuzzyFindAndReplace(content: string, oldString: string, newString: string, replaceAll: boolean): FuzzyResult {
  const fail = (error: string): FuzzyResult => ({ content, count: 0, strategy: null, error });
  if (oldString === "") return fail("old_string cannot be empty");
  if (oldString === newString) return fail("old_string and new_string are identical");
  const view = new ContentView(content);
  for (const [strategy, find] of STRATEGIES) {
    const found = find(view, oldString);
    if (found.length === 0) continue;
    if (found.length > 1 && !replaceAll) {
      return fail(`Found ${found.length} matches for old_string. Provide more context to make it unique, or use replace_all=True.`);
    }
    const spans = dropOverlaps(found);
    if (strategy !== "exact") {
      const drift = detectEscapeDrift(content, spans, oldString, newString);
      if (drift) return fail(drift);
    }
    const replacement = matchLineEndings(unescapeControlChars(newString, content, spans), content, spans);
    let out = content;
    for (let k = spans.length - 1; k >= 0; k--) {
      const [start, end] = spans[k] ?? [0, 0];
      const text = strategy === "exact" ? replacement : reindent(content.slice(start, end), oldString, replacement);
      out = out.slice(0, start) + text + out.slice(end);
    }
    return { content: out, count: spans.length, strategy, error: null };
  }
  return fail("Could not find a match for old_string in the file");
}

/** Overlapping spans cannot all be replaced; keep the leftmost of each overlapping run (str.replace semantics). */
function dropOverlaps(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const out: Span[] = [];
  for (const s of sorted) {
    const prev = out[out.length - 1];
    if (!prev || s[0] >= prev[1]) out.push(s);
  }
  return out;
}

/** `\'`/`\"` in both old and new but not in the file: the transport escaped a quote. */
function detectEscapeDrift(content: string, spans: Span[], oldString: string, newString: string): string | null {
  if (!newString.includes("\\'") && !newString.includes('\\"')) return null;
  const region = spans.map(([s, e]) => content.slice(s, e)).join("");
  const suspects: [string, string, string][] = [
    ["\\'", `"\\\\'"`, `"'"`],
    ['\\"', `'\\\\"'`, `'"'`],
  ];
  for (const [suspect, shown, plain] of suspects) {
    if (newString.includes(suspect) && oldString.includes(suspect) && !region.includes(suspect)) {
      return (
        `Escape-drift detected: old_string and new_string contain the literal sequence ${shown} ` +
        `but the matched region of the file does not. This is almost always a tool-call serialization ` +
        `artifact where an apostrophe or quote got prefixed with a spurious backslash. Re-read the file ` +
        `with read_file and pass old_string/new_string without backslash-escaping ${plain} characters.`
      );
    }
  }
  return null;
}

/** Literal `\t`/`\r` in new become real characters only where the replaced region really has them. */
function unescapeControlChars(newString: string, content: string, spans: Span[]): string {
  if (!newString.includes("\\t") && !newString.includes("\\r")) return newString;
  const region = spans.map(([s, e]) => content.slice(s, e)).join("");
  let out = newString;
  if (region.includes("\t")) out = out.replaceAll("\\t", "\t");
  if (region.includes("\r")) out = out.replaceAll("\\r", "\r");
  return out;
}

/** A CRLF region gets CRLF replacement lines when the model sent bare LFs (Hermes wrote mixed endings). */
function matchLineEndings(newString: string, content: string, spans: Span[]): string {
  if (newString.includes("\r") || !newString.includes("\n")) return newString;
  const crlf = spans.some(([s, e]) => content.slice(s, e).includes("\r\n"));
  return crlf ? newString.replaceAll("\n", "\r\n") : newString;
}

function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? "";
}

function firstMeaningfulLine(text: string): string | undefined {
  return text.split("\n").find((l) => l.trim() !== "");
}

/** Swap the model's base indent (old's first meaningful line) for the file region's base indent. */
function reindent(region: string, oldString: string, newString: string): string {
  if (newString === "") return newString;
  const oldFirst = firstMeaningfulLine(oldString);
  const fileFirst = firstMeaningfulLine(region);
  if (oldFirst === undefined || fileFirst === undefined) return newString;
  const oldIndent = leadingWhitespace(oldFirst);
  const fileIndent = leadingWhitespace(fileFirst);
  if (oldIndent === fileIndent) return newString;
  return newString
    .split("\n")
    .map((line) => {
      if (line.trim() === "") return line;
      if (leadingWhitespace(line).startsWith(oldIndent)) return fileIndent + line.slice(oldIndent.length);
      return fileIndent + line.replace(/^[ \t]+/, "");
    })
    .join("\n");
}

/**
 * Up to `n` regions most similar to old_string's first non-blank line, each with 2 lines of context
 * and `%4d| ` line numbers, joined by `\n---\n`; "" when nothing scores above 0.3.
 */
export function closestSnippets(content: string, oldString: string, n = 3): string {
  const oldLines = splitLines(oldString);
  const lines = splitLines(content);
  const anchor = oldLines.map((l) => l.trim()).find((l) => l !== "");
  if (anchor === undefined || content === "") return "";
  const top: { score: number; index: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").trim();
    if (line === "") continue;
    // Skip lines whose upper bound cannot beat the cut-off or the current n-th best (ties keep earlier lines).
    const floor = top.length === n ? Math.max(0.3, top[n - 1]?.score ?? 0) : 0.3;
    if (realQuickRatio(anchor, line) <= floor || quickRatio(anchor, line) <= floor) continue;
    const score = ratio(anchor, line);
    if (score <= floor) continue;
    top.push({ score, index: i });
    top.sort((a, b) => b.score - a.score || a.index - b.index);
    if (top.length > n) top.pop();
  }
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const { index } of top) {
    const start = Math.max(0, index - 2);
    const end = Math.min(lines.length, index + oldLines.length + 2);
    if (seen.has(`${start}:${end}`)) continue;
    seen.add(`${start}:${end}`);
    const rows: string[] = [];
    for (let k = start; k < end; k++) rows.push(`${String(k + 1).padStart(4)}| ${lines[k] ?? ""}`);
    parts.push(rows.join("\n"));
  }
  return parts.join("\n---\n");
}

/** Python str.splitlines() for \n and \r\n: no trailing empty element. */
function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The "Did you mean" suffix callers append to a no-match error; "" when nothing is close. */
export function noMatchHint(content: string, oldString: string): string {
  const snippets = closestSnippets(content, oldString);
  return snippets ? `\n\nDid you mean one of these sections?\n${snippets}` : "";
}
