import { PROVIDER_SECRET_ENV } from "../llm/providers.ts";
import { statSync } from "node:fs";
import { isProcessGroupAlive, killProcessGroup, trackProcessGroup, untrackProcessGroup } from "../util/process-groups.ts";
import type { CommandResult, RunOptions, Shell } from "./types.ts";

/** After SIGTERM on timeout, how long the group gets before SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** After the shell exits, how long to wait for children that inherited the pipe (`cmd &`) to let go of it. */
const DRAIN_GRACE_MS = 250;
/** After an abort, how long to wait for the killed shell to be reaped before resolving anyway. */
const ABORT_WAIT_MS = 200;
/** Share of the output limit kept from the start; the rest is kept from the end. */
const HEAD_SHARE = 0.4;

const isWindows = process.platform === "win32";
let shellPath: string | undefined;

/**
 * argv that runs `command` in a shell with stderr folded into stdout, so output keeps its order.
 * `exec 2>&1; ` sits on the same line so the user's line numbers in error messages stay right.
 */
export function shellArgv(command: string): string[] {
  if (isWindows) return [process.env.ComSpec ?? "cmd.exe", "/d", "/s", "/c", command];
  shellPath ??= Bun.which("bash") ?? "/bin/sh";
  return [shellPath, "-c", `exec 2>&1; ${command}`];
}

/**
 * The environment for commands the model runs: the agent's own plus `extra`, minus the provider credentials
 * (a model running `env` must not put the user's API key into its context, history and state.db). Pagers are
 * forced to `cat` because there is no terminal to page on (a `git log` would otherwise wait forever on `less`).
 */
export function shellEnv(extra?: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, PAGER: "cat", GIT_PAGER: "cat", ...extra };
  for (const name of PROVIDER_SECRET_ENV) delete env[name];
  return env;
}

/** Throws a model-readable Error unless `cwd` is an existing directory (spawn's own ENOENT names the shell). */
export function assertDirectory(cwd: string): void {
  let ok = false;
  try {
    ok = statSync(cwd).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) throw new Error(`Working directory does not exist or is not a directory: ${cwd}`);
}

/** Keeps the first and last bytes of a stream within `limit`, counting what falls in between. */
export class HeadTailBuffer {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Uint8Array[] = [];
  private headLen = 0;
  private tail: Uint8Array[] = [];
  private tailLen = 0;
  private total = 0;

  constructor(limit: number) {
    const max = Math.max(2, Math.floor(limit));
    this.headLimit = Math.floor(max * HEAD_SHARE);
    this.tailLimit = max - this.headLimit;
  }

  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headLen < this.headLimit) {
      const take = Math.min(this.headLimit - this.headLen, rest.length);
      this.head.push(rest.slice(0, take));
      this.headLen += take;
      rest = rest.subarray(take);
      if (rest.length === 0) return;
    }
    this.tail.push(rest.slice());
    this.tailLen += rest.length;
    // Drop whole chunks that lie entirely before the last `tailLimit` bytes.
    while (this.tail.length > 1 && this.tailLen - (this.tail[0]?.length ?? 0) >= this.tailLimit) {
      this.tailLen -= this.tail.shift()?.length ?? 0;
    }
  }

  get truncated(): boolean {
    return this.total > this.headLimit + this.tailLimit;
  }

  text(): string {
    const tail = Buffer.concat(this.tail);
    if (!this.truncated) return Buffer.concat([...this.head, tail]).toString("utf8");
    const keptTail = tail.subarray(tail.length - this.tailLimit);
    const omitted = this.total - this.headLen - keptTail.length;
    // Cut on character boundaries: drop a partial sequence at the head's end and the tail's start.
    const headText = new TextDecoder().decode(Buffer.concat(this.head), { stream: true });
    let start = 0;
    while (start < 3 && start < keptTail.length && ((keptTail[start] ?? 0) & 0xc0) === 0x80) start++;
    const tailText = keptTail.subarray(start).toString("utf8");
    return `${headText}\n\n[... ${omitted + start} bytes omitted ...]\n\n${tailText}`;
  }
}

/** Feeds a stream into `onChunk` until it ends or is cancelled. */
export async function pumpStream(stream: ReadableStream<Uint8Array>, onChunk: (c: Uint8Array) => void, cancel?: Promise<void>): Promise<void> {
  const reader = stream.getReader();
  void cancel?.then(() => reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onChunk(value);
    }
  } catch {
    // Cancelled or the pipe broke: whatever arrived is kept.
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs commands as local child processes, each in its own process group (and session, so nothing can
 * open /dev/tty to prompt) with stdin on /dev/null. Timeout: SIGTERM to the group, SIGKILL 2 s later.
 * Abort: SIGKILL to the group, resolving within ~250 ms; the caller checks `signal.aborted`.
 */
export const localShell: Shell = {
  async run(command: string, options: RunOptions): Promise<CommandResult> {
    const { signal } = options;
    if (signal.aborted) return { output: "", exitCode: null, signal: null, timedOut: false, truncated: false };
    assertDirectory(options.cwd);

    const proc = Bun.spawn(shellArgv(command), {
      cwd: options.cwd,
      env: shellEnv(options.env),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
    const pid = proc.pid;
    trackProcessGroup(pid);

    const buffer = new HeadTailBuffer(options.outputLimit);
    const stopReading = Promise.withResolvers<void>();
    let collecting = true;
    const collector = (live: TextDecoder) => (c: Uint8Array) => {
      if (!collecting) return;
      buffer.push(c);
      try {
        options.onOutput?.(live.decode(c, { stream: true }));
      } catch {
        // A display hook must not stop the output being collected.
      }
    };
    const drained = Promise.all([proc.stdout, proc.stderr].map((s) => pumpStream(s, collector(new TextDecoder()), stopReading.promise)));

    let timedOut = false;
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    const timeoutTimer =
      options.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            killProcessGroup(pid, "SIGTERM");
            killTimer = setTimeout(() => killProcessGroup(pid, "SIGKILL"), KILL_GRACE_MS);
          }, options.timeoutMs)
        : undefined;
    const aborted = Promise.withResolvers<void>();
    const onAbort = () => {
      killProcessGroup(pid, "SIGKILL");
      aborted.resolve();
    };
    signal.addEventListener("abort", onAbort, { once: true });

    try {
      try {
        options.onStart?.({ pid });
      } catch {
        // A display hook must not leave the command running unwatched.
      }
      await Promise.race([proc.exited, aborted.promise.then(() => Promise.race([proc.exited, sleep(ABORT_WAIT_MS)]))]);
      await Promise.race([drained, sleep(signal.aborted ? 20 : DRAIN_GRACE_MS)]);
    } finally {
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      signal.removeEventListener("abort", onAbort);
      collecting = false;
      // Killed groups have nothing left to say. Otherwise keep draining into the void, so a child left
      // running on purpose (`server &`) does not die of SIGPIPE on its next write.
      if (signal.aborted || timedOut) stopReading.resolve();
      // Members that ignored SIGTERM must not outlive a timed-out command.
      if (timedOut) killProcessGroup(pid, "SIGKILL");
      // Children left running on purpose (`server &`) stay tracked so they die with the agent.
      if (!isProcessGroupAlive(pid)) untrackProcessGroup(pid);
    }

    return {
      output: buffer.text(),
      exitCode: proc.exitCode,
      signal: proc.signalCode == null ? null : String(proc.signalCode),
      timedOut,
      truncated: buffer.truncated,
    };
  },
};
