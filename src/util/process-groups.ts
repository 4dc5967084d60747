/**
 * Process-wide registry of the process groups this agent started (foreground commands and
 * background processes), so that none outlives the agent: `killAllProcessGroups` runs at exit
 * and on stdin EOF.
 */

const tracked = new Set<number>();
const isWindows = process.platform === "win32";

export function trackProcessGroup(pid: number): void {
  tracked.add(pid);
}

export function untrackProcessGroup(pid: number): void {
  tracked.delete(pid);
}

/** The group leaders currently tracked (for diagnostics and tests). */
export function trackedProcessGroups(): number[] {
  return [...tracked];
}

/** Signals every process in the group led by `pid`. Errors (already gone, no permission) are ignored. */
export function killProcessGroup(pid: number, signal: NodeJS.Signals = "SIGKILL"): void {
  try {
    // Windows has no process groups: the best we can do is the pid itself.
    process.kill(isWindows ? pid : -pid, signal);
  } catch {
    // ESRCH: the group is already empty.
  }
}

/** True while any process of the group still exists (zombies included). */
export function isProcessGroupAlive(pid: number): boolean {
  try {
    process.kill(isWindows ? pid : -pid, 0);
    return true;
  } catch (e) {
    // EPERM means it exists but belongs to someone else: still alive.
    return e instanceof Error && "code" in e && e.code === "EPERM";
  }
}

/** Kills every tracked group and forgets them. Returns how many groups were signalled. */
export function killAllProcessGroups(signal: NodeJS.Signals = "SIGKILL"): number {
  const pids = [...tracked];
  for (const pid of pids) killProcessGroup(pid, signal);
  tracked.clear();
  return pids.length;
}
