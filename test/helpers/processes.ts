import { readFileSync } from "node:fs";

/**
 * True while a process with this pid runs. A zombie counts as gone: PID 1 in these containers may
 * never reap orphans. Where /proc is missing (macOS), `kill -0` alone decides.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return true;
  }
}
