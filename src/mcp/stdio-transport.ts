// The SDK's StdioClientTransport spawns the server in our own process group and only kills the leader, so
// a server's children (npx → node, uvx → python) would outlive it. This transport starts the server as
// the leader of its own group, tracks the group for exit-time cleanup, and kills the whole group on close.
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  isProcessGroupAlive,
  killProcessGroup,
  trackProcessGroup,
  untrackProcessGroup,
} from "../util/process-groups.ts";
import { log } from "../util/log.ts";
import type { StdioServerSpec } from "./server-spec.ts";

const STDERR_TAIL_CHARS = 2000;
/** After stdin closes, how long a polite server gets to exit before SIGTERM, then SIGKILL. */
const EXIT_GRACE_MS = 300;
const TERM_GRACE_MS = 1000;
const STDERR_DRAIN_MS = 100;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Locale and temp dir on top of the SDK's safe list: servers that shell out need them. */
function serverEnv(extra: Record<string, string>): Record<string, string> {
  const env = getDefaultEnvironment();
  for (const key of ["LANG", "LC_ALL", "TMPDIR"]) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  #proc: Bun.Subprocess<"pipe", "pipe", "pipe"> | undefined;
  readonly #readBuffer = new ReadBuffer();
  #stderrTail = "";
  #closed = false;
  #closing: Promise<void> | undefined;
  #stderrDone: Promise<void> = Promise.resolve();
  /** Set just before we signal the group: a death by signal after that is ours, not a crash. */
  #signalled = false;

  constructor(private readonly spec: StdioServerSpec) {}

  get pid(): number | undefined {
    return this.#proc?.pid;
  }

  /** The last lines the server wrote to stderr: usually why it failed to start. */
  get stderrTail(): string {
    return this.#stderrTail.trim();
  }

  /**
   * Waits (at most `ms`) for the process to end and its stderr to drain: a failed write (EPIPE) often
   * arrives before the exit status and the message that explain it.
   */
  async settle(ms: number): Promise<void> {
    const proc = this.#proc;
    if (!proc || this.#signalled) return;
    await Promise.race([Promise.all([proc.exited, this.#stderrDone]), sleep(ms)]);
  }

  /** Forgets startup chatter, so a later crash reports only what the server said after connecting. */
  clearStderrTail(): void {
    this.#stderrTail = "";
  }

  /** Exit code (or signal) once the process has ended, unless it died of our own signal. */
  get exitDescription(): string | undefined {
    const proc = this.#proc;
    if (!proc || (proc.exitCode === null && proc.signalCode === null)) return undefined;
    if (proc.signalCode && this.#signalled) return undefined;
    return proc.signalCode ? `killed by ${proc.signalCode}` : `exit code ${proc.exitCode}`;
  }

  async start(): Promise<void> {
    if (this.#proc) throw new Error("GroupStdioTransport already started");
    // Throws synchronously (ENOENT…) for a command that cannot be spawned; connect() reports it.
    const proc = Bun.spawn([this.spec.command, ...this.spec.args], {
      env: serverEnv(this.spec.env),
      ...(this.spec.cwd ? { cwd: this.spec.cwd } : {}),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
    this.#proc = proc;
    trackProcessGroup(proc.pid);
    void this.#pumpStdout(proc.stdout);
    this.#stderrDone = this.#pumpStderr(proc.stderr);
    void proc.exited.then(() => {
      log.debug(`MCP server '${this.spec.name}' (pid ${proc.pid}) ended: ${this.exitDescription ?? "?"}`);
    });
  }

  async #pumpStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of stream) {
        this.#readBuffer.append(Buffer.from(chunk));
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.#readBuffer.readMessage();
          } catch (e) {
            // A stray non-JSON line (a server logging to stdout) is skipped, as the SDK does.
            this.onerror?.(e instanceof Error ? e : new Error(String(e)));
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      }
    } catch (e) {
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
    }
    // stdout closes when the server exits (or closes it): the connection is over either way.
    await this.#proc?.exited;
    // Its last words explain a crash; a grandchild holding stderr open must not stall us.
    await Promise.race([this.#stderrDone, sleep(STDERR_DRAIN_MS)]);
    this.#finish();
  }

  async #pumpStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) {
        const text = decoder.decode(chunk, { stream: true });
        this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL_CHARS);
        log.debug(`[mcp ${this.spec.name}] ${text.trimEnd()}`);
      }
    } catch {
      // The group was killed: nothing more to read.
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    const pid = this.#proc?.pid;
    // The leader is gone; members it left behind must not linger.
    if (pid !== undefined) {
      killProcessGroup(pid, "SIGKILL");
      untrackProcessGroup(pid);
    }
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const proc = this.#proc;
    if (!proc || this.#closed) throw new Error("Not connected");
    proc.stdin.write(serializeMessage(message));
    await proc.stdin.flush();
  }

  /** stdin EOF, a short grace, SIGTERM to the group, then SIGKILL. Resolves once the group is gone. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const proc = this.#proc;
    if (!proc) {
      this.#finish();
      return;
    }
    const pid = proc.pid;
    try {
      await proc.stdin.end();
    } catch {
      // Already closed: the process is exiting.
    }
    await Promise.race([proc.exited, sleep(EXIT_GRACE_MS)]);
    if (isProcessGroupAlive(pid)) {
      this.#signalled = true;
      killProcessGroup(pid, "SIGTERM");
      // Wait for the leader only: orphaned members may linger as zombies until init reaps them.
      await Promise.race([proc.exited, sleep(TERM_GRACE_MS)]);
      killProcessGroup(pid, "SIGKILL");
    }
    await proc.exited;
    this.#finish();
  }
}
