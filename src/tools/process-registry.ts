import type { FileSink } from "bun";
import { isProcessGroupAlive, killProcessGroup, trackProcessGroup, untrackProcessGroup } from "../util/process-groups.ts";
import { assertDirectory, pumpStream, shellArgv, shellEnv } from "./local-shell.ts";

export type ProcessStatus = "running" | "exited" | "killed";

/** Bytes of recent output kept per process (Hermes keeps a 200 KB rolling window). */
const DEFAULT_OUTPUT_BYTES = 200_000;
/** Finished processes beyond this many per session are forgotten, oldest first. */
const MAX_PER_SESSION = 64;
const KILL_GRACE_MS = 2_000;
const DRAIN_GRACE_MS = 250;

/** Keeps the last `limit` bytes of a stream. */
export class OutputRing {
  private chunks: Uint8Array[] = [];
  private length = 0;
  /** Bytes ever received, including those rolled out of the window. */
  total = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    this.chunks.push(chunk.slice());
    this.length += chunk.length;
    while (this.chunks.length > 1 && this.length - (this.chunks[0]?.length ?? 0) >= this.limit) {
      this.length -= this.chunks.shift()?.length ?? 0;
    }
  }

  text(): string {
    const all = Buffer.concat(this.chunks);
    let start = Math.max(0, all.length - this.limit);
    // Start on a character boundary once the window has rolled.
    while (start > 0 && start < all.length && ((all[start] ?? 0) & 0xc0) === 0x80) start++;
    return all.subarray(start).toString("utf8");
  }
}

/** One command started with `terminal(background=true)`, in its own process group. */
export class BackgroundProcess {
  status: ProcessStatus = "running";
  exitCode: number | null = null;
  signalCode: string | null = null;
  /** Resolves once the shell exited and its output is in (or the drain grace passed). */
  readonly done: Promise<void>;
  readonly startedAt = Date.now();
  private killRequested = false;
  private readonly out: OutputRing;

  constructor(
    readonly id: string,
    readonly sessionId: string,
    readonly command: string,
    readonly cwd: string,
    private readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">,
    outputBytes: number,
  ) {
    this.out = new OutputRing(outputBytes);
    const pid = proc.pid;
    // Readers run to EOF: children that outlive the shell keep a live pipe instead of dying of SIGPIPE.
    const drained = Promise.all([proc.stdout, proc.stderr].map((s) => pumpStream(s, (c) => this.out.push(c))));
    this.done = proc.exited.then(async () => {
      this.exitCode = proc.exitCode;
      this.signalCode = proc.signalCode == null ? null : String(proc.signalCode);
      this.status = this.killRequested ? "killed" : "exited";
      if (!isProcessGroupAlive(pid)) untrackProcessGroup(pid);
      await Promise.race([drained, Bun.sleep(DRAIN_GRACE_MS)]);
    });
  }

  get pid(): number {
    return this.proc.pid;
  }

  get uptimeSeconds(): number {
    return Math.floor((Date.now() - this.startedAt) / 1000);
  }

  /** The retained output (the last 200 KB by default). */
  output(): string {
    return this.out.text();
  }

  /** Writes to the process's stdin. Throws a model-readable Error when that is no longer possible. */
  write(data: string): number {
    if (this.status !== "running") throw new Error(`Process ${this.id} has already finished (${this.status}).`);
    const stdin: FileSink = this.proc.stdin;
    try {
      const bytes = Buffer.byteLength(data);
      stdin.write(data);
      stdin.flush();
      return bytes;
    } catch (e) {
      throw new Error(`Could not write to the stdin of ${this.id}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** SIGTERM to the group, SIGKILL after 2 s; resolves once it exited (or after the grace). */
  async kill(): Promise<void> {
    if (this.status !== "running") return;
    this.killRequested = true;
    killProcessGroup(this.pid, "SIGTERM");
    const timer = setTimeout(() => killProcessGroup(this.pid, "SIGKILL"), KILL_GRACE_MS);
    await Promise.race([this.done, Bun.sleep(KILL_GRACE_MS + 500)]);
    clearTimeout(timer);
  }

  /** Immediate SIGKILL to the group (session teardown, agent exit). */
  killNow(): void {
    if (this.status !== "running") return;
    this.killRequested = true;
    killProcessGroup(this.pid, "SIGKILL");
  }
}

export type ProcessRegistryOptions = {
  outputBytes?: number;
  /** Injectable for deterministic tests; default `proc_` + 8 random hex digits. */
  newId?: () => string;
};

function randomProcId(): string {
  return `proc_${Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex")}`;
}

/**
 * Background processes of this agent process, owned per ACP session: a session only sees (and can
 * only kill or write to) the processes it started.
 */
export class ProcessRegistry {
  private readonly bySession = new Map<string, Map<string, BackgroundProcess>>();
  private readonly outputBytes: number;
  private readonly newId: () => string;

  constructor(options: ProcessRegistryOptions = {}) {
    this.outputBytes = options.outputBytes ?? DEFAULT_OUTPUT_BYTES;
    this.newId = options.newId ?? randomProcId;
  }

  /** Starts `command` in `cwd` as its own process group. Throws a model-readable Error if it cannot. */
  start(sessionId: string, command: string, options: { cwd: string; env?: Record<string, string> }): BackgroundProcess {
    assertDirectory(options.cwd);
    let id = this.newId();
    while (this.find(id)) id = this.newId();
    const proc = Bun.spawn(shellArgv(command), {
      cwd: options.cwd,
      env: shellEnv(options.env),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
    trackProcessGroup(proc.pid);
    const entry = new BackgroundProcess(id, sessionId, command, options.cwd, proc, this.outputBytes);
    const own = this.bySession.get(sessionId) ?? new Map<string, BackgroundProcess>();
    this.bySession.set(sessionId, own);
    own.set(id, entry);
    this.prune(own);
    return entry;
  }

  get(sessionId: string, id: string): BackgroundProcess | undefined {
    return this.bySession.get(sessionId)?.get(id);
  }

  list(sessionId: string): BackgroundProcess[] {
    return [...(this.bySession.get(sessionId)?.values() ?? [])];
  }

  /** Kills the session's running processes (SIGKILL) and forgets them all. Returns how many were running. */
  killAllForSession(sessionId: string): number {
    const own = this.bySession.get(sessionId);
    if (!own) return 0;
    let killed = 0;
    for (const p of own.values()) {
      if (p.status === "running") killed++;
      p.killNow();
    }
    this.bySession.delete(sessionId);
    return killed;
  }

  /** Kills every running process of every session. */
  killAll(): number {
    let killed = 0;
    for (const sessionId of [...this.bySession.keys()]) killed += this.killAllForSession(sessionId);
    return killed;
  }

  private find(id: string): BackgroundProcess | undefined {
    for (const own of this.bySession.values()) {
      const hit = own.get(id);
      if (hit) return hit;
    }
    return undefined;
  }

  private prune(own: Map<string, BackgroundProcess>): void {
    if (own.size <= MAX_PER_SESSION) return;
    const finished = [...own.values()].filter((p) => p.status !== "running").sort((a, b) => a.startedAt - b.startedAt);
    for (const p of finished.slice(0, own.size - MAX_PER_SESSION)) own.delete(p.id);
  }
}

/** The agent's one registry; the terminal and process tools share it. */
export const processRegistry = new ProcessRegistry();
