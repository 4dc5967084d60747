/**
 * Whether a file edit may proceed without asking (hermes-behaviour §14.4, with the baseline's
 * gaps closed): modes, the workspace rule on symlink-resolved paths, and sensitive paths that
 * always ask.
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

export type Mode = "default" | "accept_edits" | "dont_ask";

export type HomePaths = { home: string; hermesHome: string };

export type EditPolicyContext = HomePaths & {
  mode: Mode;
  /** Session cwd: the workspace for `accept_edits`. */
  cwd: string;
  /** System temp dir, also auto-allowed under `accept_edits`. */
  tmpDir: string;
  /** The user chose "Allow edits for this session" (or yolo): auto-allow except sensitive paths. */
  sessionAllowsEdits: boolean;
};

const SENSITIVE_DIRS = new Set([".git", ".ssh", ".gnupg", ".aws"]);
const SENSITIVE_NAMES = new Set([
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".pgpass",
  ".git-credentials",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
  ".kshrc",
  ".cshrc",
  ".tcshrc",
]);
// Private keys by their usual names: ssh identities and PEM/PKCS containers.
const PRIVATE_KEY_RE = /^(?:id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|.*\.(?:pem|key|p12|pfx|ppk))$/i;
const ENV_FILE_RE = /^\.env(?:\..+)?$/i;

function components(path: string): string[] {
  return path.split(/[\\/]+/).filter((part) => part !== "");
}

function samePath(a: string, b: string): boolean {
  return resolve(a) === resolve(b);
}

/** Paths whose edits always ask, in every mode: credentials, keys, VCS internals, shell startup, Hermes policy. */
export function isSensitivePath(absPath: string, ctx: HomePaths): boolean {
  const parts = components(absPath).map((part) => part.toLowerCase());
  if (parts.some((part) => SENSITIVE_DIRS.has(part))) return true;
  const name = basename(absPath).toLowerCase();
  if (ENV_FILE_RE.test(name) || SENSITIVE_NAMES.has(name) || PRIVATE_KEY_RE.test(name)) return true;
  // $HERMES_HOME/config.yaml holds the approval policy and the command allowlist.
  return samePath(absPath, join(ctx.hermesHome, "config.yaml")) || samePath(absPath, join(ctx.hermesHome, ".env"));
}

const MAX_LINK_HOPS = 40;

/**
 * The real path a write to `path` would land on, following symlinks, also for files that do not
 * exist yet (realpath of the longest existing ancestor) and dangling links (their target).
 * Null when it cannot be worked out (link loop): callers must then ask.
 */
export function resolveWriteTarget(path: string, hops = 0): string | null {
  if (hops > MAX_LINK_HOPS) return null;
  const abs = resolve(path);
  try {
    return realpathSync.native(abs);
  } catch {
    // Missing or a dangling link: work it out below.
  }
  let isLink = false;
  try {
    isLink = lstatSync(abs).isSymbolicLink();
  } catch {
    isLink = false;
  }
  if (isLink) {
    let target: string;
    try {
      target = readlinkSync(abs);
    } catch {
      return null;
    }
    return resolveWriteTarget(isAbsolute(target) ? target : join(dirname(abs), target), hops + 1);
  }
  const parent = dirname(abs);
  if (parent === abs) return abs;
  const resolvedParent = resolveWriteTarget(parent, hops);
  return resolvedParent === null ? null : join(resolvedParent, basename(abs));
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function decideOne(absPath: string, ctx: EditPolicyContext): "allow" | "ask" {
  const target = resolveWriteTarget(absPath);
  if (target === null) return "ask";
  if (isSensitivePath(absPath, ctx) || isSensitivePath(target, ctx)) return "ask";
  if (ctx.mode === "dont_ask" || ctx.sessionAllowsEdits) return "allow";
  if (ctx.mode === "default") return "ask";
  const roots = [ctx.cwd, ctx.tmpDir].map((root) => resolveWriteTarget(root)).filter((root) => root !== null);
  return roots.some((root) => isInside(target, root)) ? "allow" : "ask";
}

/** "allow" only when every path may be written without asking. */
export function decideEdit(absPaths: string[], ctx: EditPolicyContext): "allow" | "ask" {
  if (absPaths.length === 0) return "ask";
  return absPaths.every((path) => decideOne(resolve(ctx.cwd, path), ctx) === "allow") ? "allow" : "ask";
}
