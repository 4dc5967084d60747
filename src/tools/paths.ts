import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/**
 * Absolute, normalised path for a tool argument. Relative paths resolve against the SESSION cwd,
 * never process.cwd() (Hermes resolved them against the process cwd — a known bug).
 */
export function resolveToolPath(cwd: string, p: string): string {
  let expanded = p;
  if (p === "~") expanded = homedir();
  else if (p.startsWith("~/") || p.startsWith("~\\")) expanded = join(homedir(), p.slice(2));
  return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
}
