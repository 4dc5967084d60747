/**
 * Rewrites a shell command into the canonical form the approval patterns are written against
 * (Hermes `_normalize_command_for_detection`), so obfuscation (ANSI, NUL, fullwidth letters,
 * `r\m`, `r''m`, `${IFS}`, absolute home paths) cannot slip past them. Detection only: the
 * command that runs is never rewritten.
 */

export type HomeContext = {
  /** Absolute user home, e.g. /home/alice. */
  home: string;
  /** Absolute Hermes home (HERMES_HOME), e.g. /home/alice/.hermes. */
  hermesHome: string;
};

// ECMA-48: CSI (7- and 8-bit), OSC/DCS/SOS/PM/APC strings, then any other two-byte ESC sequence.
const ANSI_RE = new RegExp(
  [
    "(?:\\x1b\\[|\\x9b)[0-?]*[ -/]*[@-~]",
    "(?:\\x1b[\\]PX^_]|[\\x90\\x98\\x9d-\\x9f])[\\s\\S]*?(?:\\x07|\\x1b\\\\|\\x9c|$)",
    "\\x1b[ -/]*[0-~]",
  ].join("|"),
  "g",
);

/** Characters that end a path word in a shell command. */
const PATH_END = "(?=$|[/\\s'\"`;|&()<>])";
/** A path may not be glued to a preceding word, dot, tilde or slash (`/x/home/a` is not `/home/a`). */
const PATH_START = "(?<![\\w.~/$-])";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function stripTrailingSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}

/** Replaces `prefix` (as a whole path prefix) with `replacement`. */
function foldPrefix(command: string, prefix: string, replacement: string): string {
  const clean = stripTrailingSlash(prefix);
  if (clean === "" || clean === "/") return command;
  const re = new RegExp(`${PATH_START}${escapeRegExp(clean)}${PATH_END}`, "g");
  return command.replace(re, replacement);
}

export function stripAnsi(text: string): string {
  return text.replace(ANSI_RE, "");
}

/**
 * Canonical form for matching (not lower-cased: the caller lower-cases, except for the few
 * case-sensitive rules such as `sudo -S` vs `sudo -s`).
 */
export function normalizeCommand(command: string, ctx: HomeContext): string {
  let out = stripAnsi(command);
  out = out.replaceAll("\0", "");
  out = out.normalize("NFKC");
  // The shell drops backslash-newline and joins the words: `rm -rf \<nl>/` is `rm -rf /`.
  out = out.replace(/\\\r?\n/g, "");
  // Hermes home first: it usually lives under the user home and would lose its prefix otherwise.
  out = foldPrefix(out, ctx.hermesHome, "~/.hermes");
  out = foldPrefix(out, ctx.home, "~");
  // Other users' homes are just as sensitive (`~bob/.ssh` written as /home/bob/.ssh).
  out = out.replace(new RegExp(`${PATH_START}(?:/home|/Users)/[^/\\s'"\`;|&()<>*?]+${PATH_END}`, "g"), "~");
  // Shell escapes and empty quotes split words without changing them: r\m, r''m, r""m → rm.
  out = out.replace(/\\([^\n])/g, "$1");
  out = out.replace(/''|""/g, "");
  // $IFS expands to whitespace, so rm${IFS}-rf${IFS}/ runs as rm -rf /.
  out = out.replace(/\$\{IFS\b[^}]*\}|\$IFS\b/g, " ");
  return out;
}
