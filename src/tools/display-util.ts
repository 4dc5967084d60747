// Small helpers for the card display. They mirror Python semantics (truthiness, str(), len in code points)
// because the strings users see are ported from Hermes.

export type Args = Record<string, unknown>;

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Tool-call arguments as an object. They may arrive as the raw JSON string (Hermes bug §23.1). */
export function coerceArgs(args: unknown): Args {
  let value = args;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      value = { raw: value };
    }
  }
  return isRecord(value) ? value : {};
}

/** Python truthiness. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isRecord(v)) return Object.keys(v).length > 0;
  return true;
}

/** Python's `value in (None, "", [], {})`. */
export function emptyish(v: unknown): boolean {
  return v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0) || (isRecord(v) && Object.keys(v).length === 0);
}

/** Python str(): True/False/None, lists and dicts as repr. */
export function pyStr(v: unknown): string {
  if (typeof v === "string") return v;
  return pyRepr(v);
}

function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : v > 0 ? "inf" : v < 0 ? "-inf" : "nan";
  if (typeof v === "string") return `'${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n")}'`;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (isRecord(v)) return `{${Object.entries(v).map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(", ")}}`;
  return String(v);
}

/** `data.get(key, fallback)`: the value when the key is present (even if empty), else the fallback. */
export function getOr(data: Args, key: string, fallback: unknown): unknown {
  return key in data && data[key] !== undefined ? data[key] : fallback;
}

/** First truthy `data[key]` in key order, else the fallback. */
export function first(data: Args, keys: string[], fallback: unknown = ""): unknown {
  for (const k of keys) if (truthy(data[k])) return data[k];
  return fallback;
}

/** First truthy argument as a trimmed string, else the fallback. */
export function arg(data: Args, keys: string[], fallback = ""): string {
  return pyStr(first(data, keys, fallback)).trim() || fallback;
}

/** Length in code points (Python len). */
export function charLength(text: string): number {
  if (text.length < 2) return text.length;
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** First `count` code points. */
export function sliceChars(text: string, count: number): string {
  if (text.length <= count) return text;
  return Array.from(text).slice(0, Math.max(0, count)).join("");
}

/** T(text, limit): keep `limit-100` chars and say how long it was. */
export function truncateText(text: string, limit = 5000): string {
  if (text.length <= limit) return text;
  const total = charLength(text);
  if (total <= limit) return text;
  return `${sliceChars(text, Math.max(0, limit - 100))}\n... (${total} chars total, truncated)`;
}

/** Hard-truncate with a trailing ellipsis. */
export function clip(text: string, limit: number): string {
  return charLength(text) <= limit ? text : `${sliceChars(text, limit - 3)}...`;
}

export function plural(count: unknown, word: string, suffix = "s"): string {
  return `${pyStr(count)} ${word}${count !== 1 ? suffix : ""}`;
}

/** `["... N more<unit>"]` when items overflowed `shown`. */
export function more(items: unknown[], shown: number, unit = ""): string[] {
  return items.length > shown ? [`... ${items.length - shown} more${unit}`] : [];
}

/** A Markdown fence longer than any backtick run in the text, so the text cannot close it. */
export function fencedText(text: string, language = ""): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

export function nonempty(result: string | undefined): string | undefined {
  return result !== undefined && result.trim() ? result : undefined;
}

/** Structured failure text when `success` is false or `error` is set. */
export function failureText(data: Args, prefix: string): string | undefined {
  const failed = data.success === false || truthy(data.error);
  return failed ? `${prefix}: ${pyStr(getOr(data, "error", "unknown error"))}` : undefined;
}

/** Whitespace collapsed like Python's `" ".join(s.split())`. */
export function collapseWhitespace(text: string): string {
  return text.split(/\s+/).filter(Boolean).join(" ");
}

/**
 * Decodes a JSON result; when trailing text follows the payload (`{...}\n\n[Hint: ...]`), decodes the
 * first JSON value. Returns undefined when it is not JSON at all.
 */
export function parseJsonLoose(value: string | undefined): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    // fall through to the first JSON value
  }
  const text = value.trimStart();
  const end = firstValueEnd(text);
  if (end <= 0) return undefined;
  try {
    return JSON.parse(text.slice(0, end));
  } catch {
    return undefined;
  }
}

/** End index of the first JSON value in `text`, or -1. */
function firstValueEnd(text: string): number {
  const c = text[0];
  if (c === "{" || c === "[") {
    let depth = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (inString) {
        if (ch === "\\") i++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === "{" || ch === "[") depth++;
      else if (ch === "}" || ch === "]") {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  if (c === '"') {
    for (let i = 1; i < text.length; i++) {
      if (text[i] === "\\") i++;
      else if (text[i] === '"') return i + 1;
    }
    return -1;
  }
  const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text);
  return m ? m[0].length : -1;
}

/** Python `json.dumps(v, ensure_ascii=False)`: compact but with `", "` and `": "` separators. */
export function pyJsonDumps(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pyJsonDumps).join(", ")}]`;
  if (isRecord(v)) return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${pyJsonDumps(x)}`).join(", ")}}`;
  return JSON.stringify(v) ?? "null";
}
