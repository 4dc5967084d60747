// Session titles as Hermes keeps them: sanitised, ≤ 100 characters, unique among non-NULL titles.

export const MAX_TITLE_LENGTH = 100;

// Hermes' sanitize_title: ASCII controls except \t \n \r (those collapse to spaces below) …
const ASCII_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
// … zero-width, line/paragraph separators, bidi overrides/isolates, word joiners, BOM, U+FFF9–FFFC.
const UNICODE_CONTROLS = /[\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffc]/g;
// Python's `\s` also matches U+0085, which JS' `\s` does not.
const WHITESPACE_RUN = /[\s\u0085]+/g;

/** Code points, not UTF-16 units: Hermes counts with Python's len(). */
function truncateCodePoints(text: string, max: number): string {
  const points = Array.from(text);
  return points.length <= max ? text : points.slice(0, max).join("");
}

function codePointLength(text: string): number {
  return Array.from(text).length;
}

/**
 * Hermes' sanitize_title, except that an over-long title is cut to 100 characters
 * (Hermes raises instead). Empty → null.
 */
export function sanitizeTitle(title: string | null | undefined): string | null {
  if (!title) return null;
  const cleaned = title.replace(ASCII_CONTROLS, "").replace(UNICODE_CONTROLS, "").replace(WHITESPACE_RUN, " ").trim();
  if (!cleaned) return null;
  return truncateCodePoints(cleaned, MAX_TITLE_LENGTH).trimEnd();
}

/** `<base> #<n>`, shortening the base so the whole stays within the limit. */
export function numberedTitle(base: string, n: number): string {
  const suffix = ` #${n}`;
  const room = MAX_TITLE_LENGTH - codePointLength(suffix);
  return truncateCodePoints(base, room).trimEnd() + suffix;
}

const NUMBERED = /^(.*?) #(\d+)$/s;

/** The base of a lineage title: "Refactor #3" → "Refactor". */
export function lineageBase(title: string): string {
  const match = NUMBERED.exec(title);
  return match?.[1] ?? title;
}

/**
 * Hermes' get_next_title_in_lineage: the unnumbered title counts as #1, so the next
 * is one past the highest number among `existing` (titles equal to base or "base #N").
 */
export function nextTitleInLineage(title: string, existing: readonly string[]): string {
  const base = lineageBase(title);
  if (existing.length === 0) return base;
  let max = 1;
  for (const t of existing) {
    const match = NUMBERED.exec(t);
    if (match && match[1] === base) max = Math.max(max, Number(match[2]));
  }
  return numberedTitle(base, max + 1);
}

/** Appends " #2", " #3"… until `isTaken` says no (bounded; the last candidate is returned regardless). */
export function uniqueTitle(title: string, isTaken: (candidate: string) => boolean): string {
  if (!isTaken(title)) return title;
  for (let n = 2; n < 10_000; n++) {
    const candidate = numberedTitle(title, n);
    if (!isTaken(candidate)) return candidate;
  }
  return numberedTitle(title, 10_000);
}

/** Escapes LIKE wildcards for `... LIKE ? ESCAPE '\'`. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
