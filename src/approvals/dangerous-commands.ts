/**
 * Classifies a terminal command for the approval gate: hardline (never runs), dangerous (ask
 * unless approved), or safe. Pure: the caller supplies the homes and whether SUDO_PASSWORD is set.
 */
import {
  type CommandPattern,
  DANGEROUS_PATTERNS,
  HARDLINE_PATTERNS,
  legacyPatternKey,
  SUDO_STDIN_GUARD,
} from "./dangerous-patterns.ts";
import { type HomeContext, normalizeCommand } from "./normalize-command.ts";

export type CommandContext = HomeContext & {
  /** With SUDO_PASSWORD configured the terminal injects `sudo -S` itself, so the guard is off. */
  sudoPasswordSet?: boolean;
};

export type DangerMatch = { description: string; key: string };

export type CommandVerdict =
  | { verdict: "hardline"; description: string }
  /** description/key: the first match; `matches`: every rule the command trips, in table order. */
  | { verdict: "dangerous"; description: string; key: string; matches: DangerMatch[] }
  | { verdict: "safe" };

// Text handed to another shell is code, not prose: `bash -c 'reboot'` must hit the hardline too.
const SHELL_PAYLOAD_RE = /\b(?:bash|sh|zsh|ksh|dash)\s+(?:-[^\s]+\s+)*?-[a-z]*c[a-z]*\s+(["'])([\s\S]*?)\1/gi;
const EVAL_PAYLOAD_RE = /\beval\s+(["'])([\s\S]*?)\1/gi;
const MAX_PAYLOAD_DEPTH = 3;

/** The normalized command plus every shell payload it carries (nested up to a few levels). */
function detectionVariants(normalized: string): string[] {
  const variants = [normalized];
  let frontier = [normalized];
  for (let depth = 0; depth < MAX_PAYLOAD_DEPTH && frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const text of frontier) {
      for (const re of [SHELL_PAYLOAD_RE, EVAL_PAYLOAD_RE]) {
        for (const match of text.matchAll(re)) {
          const payload = match[2];
          if (payload !== undefined && payload.trim() !== "" && !variants.includes(payload)) {
            variants.push(payload);
            next.push(payload);
          }
        }
      }
    }
    frontier = next;
  }
  return variants;
}

function matches(pattern: CommandPattern, text: string): boolean {
  return pattern.re.test(pattern.caseSensitive === true ? text : text.toLowerCase());
}

/** First hardline description matched by already-normalized text, or null. */
export function detectHardline(normalized: string): string | null {
  for (const variant of detectionVariants(normalized)) {
    const hit = HARDLINE_PATTERNS.find((pattern) => matches(pattern, variant));
    if (hit !== undefined) return hit.description;
  }
  return null;
}

/** Every dangerous-rule description matched by already-normalized text, in table order, distinct. */
export function detectDangerous(normalized: string): string[] {
  const variants = detectionVariants(normalized);
  const found: string[] = [];
  for (const pattern of DANGEROUS_PATTERNS) {
    if (found.includes(pattern.description)) continue;
    if (variants.some((variant) => matches(pattern, variant))) found.push(pattern.description);
  }
  return found;
}

export function classifyCommand(command: string, ctx: CommandContext): CommandVerdict {
  const normalized = normalizeCommand(command, ctx);
  const hardline = detectHardline(normalized);
  if (hardline !== null) return { verdict: "hardline", description: hardline };
  if (ctx.sudoPasswordSet !== true && detectionVariants(normalized).some((v) => matches(SUDO_STDIN_GUARD, v))) {
    return { verdict: "hardline", description: SUDO_STDIN_GUARD.description };
  }
  const found = detectDangerous(normalized).map((description) => ({ description, key: description }));
  const first = found[0];
  if (first === undefined) return { verdict: "safe" };
  return { verdict: "dangerous", description: first.description, key: first.key, matches: found };
}

const LEGACY_ALIASES: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const pattern of DANGEROUS_PATTERNS) {
    const aliases = map.get(pattern.description) ?? [pattern.description];
    const legacy = legacyPatternKey(pattern);
    if (!aliases.includes(legacy)) aliases.push(legacy);
    map.set(pattern.description, aliases);
  }
  return map;
})();

/** Keys under which an approval of `key` may have been stored (current description + legacy regex keys). */
export function approvalKeyAliases(key: string): readonly string[] {
  return LEGACY_ALIASES.get(key) ?? [key];
}
