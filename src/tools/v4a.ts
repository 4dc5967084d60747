/**
 * V4A patches (behaviour doc §20.5): tolerant parsing, then a pure validate-all simulation over an
 * in-memory view of the files. The simulation yields every file's old and new text, so the tool can
 * show all diffs in one approval request and write nothing unless every operation validates.
 */
import { fuzzyFindAndReplace, noMatchHint } from "./fuzzy-match.ts";

export type HunkLine = { prefix: " " | "-" | "+"; content: string };
export type Hunk = { hint: string | null; lines: HunkLine[] };
export type PatchOperation =
  | { kind: "update"; path: string; hunks: Hunk[] }
  | { kind: "add"; path: string; hunks: Hunk[] }
  | { kind: "delete"; path: string }
  | { kind: "move"; path: string; to: string };

export type ParseResult = { ok: true; operations: PatchOperation[] } | { ok: false; error: string };

const BEGIN = /\*\*\*\s*Begin\s+Patch/;
const END = /\*\*\*\s*End\s+Patch/;
const HEADERS: [PatchOperation["kind"], RegExp][] = [
  ["update", /^\*\*\*\s*Update\s+File:\s*(.*)$/],
  ["add", /^\*\*\*\s*Add\s+File:\s*(.*)$/],
  ["delete", /^\*\*\*\s*Delete\s+File:\s*(.*)$/],
  ["move", /^\*\*\*\s*Move\s+File:\s*(.*)$/],
];

/** Markers count anywhere in a line, except in lines a hunk adds or removes (a patch about patches). */
function isMarker(line: string, re: RegExp): boolean {
  return !line.startsWith("+") && !line.startsWith("-") && re.test(line);
}

/** Python-style repr of a path for parse errors. */
function quote(s: string): string {
  return `'${s.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

export function parseV4A(patch: string): ParseResult {
  const lines = patch.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  const begin = lines.findIndex((l) => isMarker(l, BEGIN));
  const from = begin + 1;
  let to = lines.findIndex((l, i) => i >= from && isMarker(l, END));
  if (to === -1) to = lines.length;

  const operations: PatchOperation[] = [];
  let current: Extract<PatchOperation, { hunks: Hunk[] }> | null = null;
  let hunk: Hunk | null = null;
  let blanks = 0; // empty lines seen since the last hunk line: kept only if more hunk lines follow
  const flushHunk = (): void => {
    if (current && hunk && hunk.lines.length > 0) current.hunks.push(hunk);
    hunk = null;
    blanks = 0;
  };
  const pushLine = (line: HunkLine): void => {
    hunk ??= { hint: null, lines: [] };
    // An empty line inside a hunk is a blank context line whose leading space was stripped.
    for (; blanks > 0; blanks--) hunk.lines.push({ prefix: current?.kind === "add" ? "+" : " ", content: "" });
    hunk.lines.push(line);
  };

  for (const line of lines.slice(from, to)) {
    const header = HEADERS.map(([kind, re]) => [kind, re.exec(line)] as const).find(([, m]) => m);
    if (header) {
      flushHunk();
      const [kind, match] = header;
      const target = (match?.[1] ?? "").trim();
      if (kind === "update" || kind === "add") {
        const op: Extract<PatchOperation, { hunks: Hunk[] }> = { kind, path: target, hunks: [] };
        current = op;
        operations.push(op);
      } else {
        current = null;
        if (kind === "delete") operations.push({ kind, path: target });
        else {
          const arrow = /^(.+?)\s*->\s*(.*)$/.exec(target);
          operations.push({ kind, path: (arrow?.[1] ?? target).trim(), to: (arrow?.[2] ?? "").trim() });
        }
      }
      continue;
    }
    if (!current) continue;
    if (line.startsWith("@@")) {
      flushHunk();
      const inner = /^@@\s*(.*?)\s*(@@\s*)?$/.exec(line)?.[1] ?? "";
      hunk = { hint: inner === "" ? null : inner, lines: [] };
      continue;
    }
    if (line === "") {
      if (hunk && hunk.lines.length > 0) blanks++;
      continue;
    }
    const first = line.charAt(0);
    if (first === "\\") continue; // "\ No newline at end of file"
    if (first === "+" || first === "-" || first === " ") pushLine({ prefix: first, content: line.slice(1) });
    else pushLine({ prefix: " ", content: line });
  }
  flushHunk();

  const errors: string[] = [];
  for (const op of operations) {
    if (op.path === "") errors.push("Operation with empty file path");
    if (op.kind === "update" && op.hunks.length === 0) errors.push(`UPDATE ${quote(op.path)}: no hunks found`);
    if (op.kind === "move" && op.to === "") errors.push(`MOVE ${quote(op.path)}: missing destination path (expected 'src -> dst')`);
  }
  return errors.length > 0 ? { ok: false, error: `Parse error: ${errors.join("; ")}` } : { ok: true, operations };
}

/** What a path holds before the patch. `unreadable` exists but could not be read as text. */
export type FileState = { kind: "missing" } | { kind: "text"; text: string } | { kind: "unreadable"; error: string };

/** One touched file: `key` as given by keyOf (absolute in the tool), `path` as the patch spelled it. */
export type FileChange = { key: string; path: string; oldText: string | null; newText: string | null };

/** Side effects in patch order. */
export type PatchEffect =
  | { kind: "write"; key: string; path: string; text: string }
  | { kind: "delete"; key: string; path: string }
  | { kind: "move"; fromKey: string; toKey: string; from: string; to: string };

export type PatchPlan = {
  changes: FileChange[];
  effects: PatchEffect[];
  filesModified: string[];
  filesCreated: string[];
  filesDeleted: string[];
};

export type PlanResult = { ok: true; plan: PatchPlan } | { ok: false; error: string };

/** Every path an operation reads or writes, as spelled in the patch. */
export function operationPaths(operations: PatchOperation[]): string[] {
  return [...new Set(operations.flatMap((op) => (op.kind === "move" ? [op.path, op.to] : [op.path])))];
}

function countOccurrences(text: string, needle: string): number {
  let n = 0;
  for (let pos = text.indexOf(needle); pos !== -1; pos = text.indexOf(needle, pos + 1)) n++;
  return n;
}

/**
 * Validates every operation against `initial` (keyed by keyOf(path); absent = missing), simulating
 * UPDATE hunks in order so later hunks and operations see earlier results. Pure.
 */
export function planV4A(
  operations: PatchOperation[],
  initial: ReadonlyMap<string, FileState>,
  keyOf: (path: string) => string = (p) => p,
): PlanResult {
  const state = new Map<string, FileState>(initial);
  const read = (key: string): FileState => state.get(key) ?? { kind: "missing" };
  const touched = new Map<string, string>(); // key → path as first spelled
  const touch = (key: string, path: string): void => void (touched.has(key) || touched.set(key, path));
  const errors: string[] = [];
  const plan: PatchPlan = { changes: [], effects: [], filesModified: [], filesCreated: [], filesDeleted: [] };

  for (const op of operations) {
    const key = keyOf(op.path);
    const current = read(key);
    if (op.kind === "update") {
      if (current.kind !== "text") {
        errors.push(`${op.path}: ${current.kind === "missing" ? "file not found" : current.error}`);
        continue;
      }
      const text = applyHunks(op.path, current.text, op.hunks, errors);
      if (text === null) continue;
      state.set(key, { kind: "text", text });
      touch(key, op.path);
      plan.effects.push({ kind: "write", key, path: op.path, text });
      plan.filesModified.push(op.path);
    } else if (op.kind === "add") {
      // Add must create: overwriting an existing file with only the '+' lines would silently destroy it.
      if (current.kind !== "missing") {
        errors.push(`${op.path}: ${current.kind === "text" ? "file already exists — use Update File, not Add File" : current.error}`);
        continue;
      }
      const text = op.hunks.flatMap((h) => h.lines.filter((l) => l.prefix !== "-").map((l) => l.content)).join("\n");
      state.set(key, { kind: "text", text });
      touch(key, op.path);
      plan.effects.push({ kind: "write", key, path: op.path, text });
      plan.filesCreated.push(op.path);
    } else if (op.kind === "delete") {
      if (current.kind !== "text") {
        errors.push(`${op.path}: ${current.kind === "missing" ? "file not found for deletion" : current.error}`);
        continue;
      }
      state.set(key, { kind: "missing" });
      touch(key, op.path);
      plan.effects.push({ kind: "delete", key, path: op.path });
      plan.filesDeleted.push(op.path);
    } else {
      const toKey = keyOf(op.to);
      const destination = read(toKey);
      if (current.kind !== "text") errors.push(`${op.path}: ${current.kind === "missing" ? "source file not found for move" : current.error}`);
      if (destination.kind === "text") errors.push(`${op.to}: destination already exists — move would overwrite`);
      else if (destination.kind === "unreadable") errors.push(`${op.to}: ${destination.error}`);
      if (current.kind !== "text" || destination.kind !== "missing") continue;
      state.set(toKey, current);
      state.set(key, { kind: "missing" });
      touch(key, op.path);
      touch(toKey, op.to);
      plan.effects.push({ kind: "move", fromKey: key, toKey, from: op.path, to: op.to });
      plan.filesModified.push(`${op.path} -> ${op.to}`);
    }
  }
  if (errors.length > 0) {
    return { ok: false, error: `Patch validation failed (no files were modified):\n${errors.map((e) => `  • ${e}`).join("\n")}` };
  }
  for (const [key, path] of touched) {
    const before = initial.get(key);
    const after = read(key);
    const oldText = before?.kind === "text" ? before.text : null;
    const newText = after.kind === "text" ? after.text : null;
    if (oldText !== newText) plan.changes.push({ key, path, oldText, newText });
  }
  return { ok: true, plan };
}

/** Applies one file's hunks in order; null (with errors pushed) when any hunk fails. */
function applyHunks(path: string, original: string, hunks: Hunk[], errors: string[]): string | null {
  let text = original;
  let failed = false;
  hunks.forEach((hunk, index) => {
    const search = hunk.lines.filter((l) => l.prefix !== "+").map((l) => l.content);
    const replace = hunk.lines.filter((l) => l.prefix !== "-").map((l) => l.content);
    // Context-only hunks (anchors between changes) change nothing.
    if (search.length === replace.length && search.every((l, i) => l === replace[i])) return;
    const insert = replace.join("\n");
    if (search.length === 0) {
      const placed = insertAddition(text, hunk.hint, insert);
      if (typeof placed === "string") text = placed;
      else {
        errors.push(`${path}: ${placed.error}`);
        failed = true;
      }
      return;
    }
    const pattern = search.join("\n");
    const result = fuzzyFindAndReplace(text, pattern, insert, false);
    if (result.count > 0) {
      text = result.content;
      return;
    }
    const windowed = hunk.hint ? replaceNearHint(text, hunk.hint, pattern, insert) : null;
    if (windowed !== null) {
      text = windowed;
      return;
    }
    const label = hunk.hint ? `'${hunk.hint}'` : "(no hint)";
    const hint = result.error?.startsWith("Could not find") ? noMatchHint(text, pattern) : "";
    errors.push(`${path}: hunk ${index + 1} ${label} not found — ${result.error ?? "no match"}${hint}`);
    failed = true;
  });
  return failed ? null : text;
}

/** Retry inside the hint's neighbourhood (−500 … +2000 chars), where a globally ambiguous hunk may be unique. */
function replaceNearHint(text: string, hint: string, pattern: string, insert: string): string | null {
  const at = text.indexOf(hint);
  if (at === -1) return null;
  const start = Math.max(0, at - 500);
  const end = Math.min(text.length, at + 2000);
  const result = fuzzyFindAndReplace(text.slice(start, end), pattern, insert, false);
  return result.count > 0 ? text.slice(0, start) + result.content + text.slice(end) : null;
}

/** Addition-only hunk: after the line holding the (unique) hint, or at the end of the file without one. */
function insertAddition(text: string, hint: string | null, insert: string): string | { error: string } {
  if (hint === null) return text === "" ? `${insert}\n` : `${text.replace(/\n+$/, "")}\n${insert}\n`;
  const n = countOccurrences(text, hint);
  if (n === 0) return { error: `addition-only hunk context hint '${hint}' not found` };
  if (n > 1) return { error: `addition-only hunk context hint '${hint}' is ambiguous (${n} occurrences)` };
  const eol = text.indexOf("\n", text.indexOf(hint));
  return eol === -1 ? `${text}\n${insert}` : `${text.slice(0, eol + 1)}${insert}\n${text.slice(eol + 1)}`;
}
