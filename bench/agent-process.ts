// The compiled agent as a benchmark sees it: a child process speaking NDJSON, every incoming line
// time-stamped when it is split off the pipe (before JSON.parse), so latencies are not skewed by our bookkeeping.
import { $ } from "bun";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { buildHost } from "../scripts/build.ts";

export type Json = Record<string, unknown>;
const JsonObject = z.record(z.string(), z.unknown());
const PermissionParams = z.object({ options: z.array(z.object({ optionId: z.string(), kind: z.string() })).default([]) });
const RpcError = z.object({ code: z.number(), message: z.string() });
const isJsonObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
export type Timed = { msg: Json; at: number };

const root = join(import.meta.dir, "..");
export const BINARY = join(root, "dist/hermes-acp");
const BARE = join(root, "dist/bench-bare-agent");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** dist/hermes-acp, rebuilt when missing or older than any file under src/ (a stale binary measures old code). */
export async function ensureBinary(): Promise<string> {
  if (existsSync(BINARY) && statSync(BINARY).mtimeMs >= newestMtime(join(root, "src"))) return BINARY;
  process.stderr.write("building dist/hermes-acp …\n");
  return buildHost(BINARY);
}

/** The floor program of bench/startup.bench.ts (it rebuilds the same file on each of its runs). */
export async function ensureBare(): Promise<string> {
  const source = join(import.meta.dir, "fixtures/bare-agent.ts");
  if (existsSync(BARE) && statSync(BARE).mtimeMs >= statSync(source).mtimeMs) return BARE;
  await $`bun build --compile --minify ${source} --outfile ${BARE}`.quiet();
  return BARE;
}

/** config.yaml for a `custom` endpoint at `baseUrl` (it needs no key). */
export function benchConfig(baseUrl: string, contextLength = 1_000_000): string {
  return `model:\n  provider: custom\n  base_url: ${baseUrl}\n  default: fake-model\n  context_length: ${contextLength}\n`;
}

/** A temp HERMES_HOME whose config points at `baseUrl`. */
export function benchHome(baseUrl = "http://127.0.0.1:9/v1", contextLength = 1_000_000): string {
  const home = mkdtempSync(join(tmpdir(), "hermes-bench-home-"));
  writeFileSync(join(home, "config.yaml"), benchConfig(baseUrl, contextLength));
  return home;
}

export function benchEnv(home: string): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, HERMES_HOME: home, HERMES_ACP_LOG_LEVEL: "warn", HERMES_ACP_MODEL_REFRESH: "off" };
  for (const key of Object.keys(env)) if (/_API_KEY$/.test(key)) delete env[key];
  return env;
}

/** Peak resident set size (VmHWM) of a live process, in MB. */
export function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmHWM for pid ${pid}`);
  return Number(m[1]) / 1024;
}

export class AgentProcess {
  readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">;
  readonly spawnedAt: number;
  /** Called for every notification (and every request the agent sends) with its arrival time. */
  onMessage: ((msg: Json, at: number) => void) | null = null;
  private nextId = 0;
  private pending = new Map<number, (t: Timed) => void>();
  private stderrTail = "";
  private readonly done: Promise<void>;

  constructor(cmd: string[], env: Record<string, string | undefined>, cwd?: string) {
    this.spawnedAt = performance.now();
    this.proc = Bun.spawn(cmd, { stdin: "pipe", stdout: "pipe", stderr: "pipe", env, ...(cwd ? { cwd } : {}) });
    this.done = this.readLoop();
    void this.drainStderr();
  }

  get pid(): number {
    return this.proc.pid;
  }

  private async drainStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.proc.stderr) this.stderrTail = (this.stderrTail + decoder.decode(chunk, { stream: true })).slice(-4000);
  }

  private async readLoop(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of this.proc.stdout) {
      const at = performance.now();
      buffer += decoder.decode(chunk, { stream: true });
      let start = 0;
      let nl = buffer.indexOf("\n");
      while (nl >= 0) {
        const line = buffer.slice(start, nl);
        start = nl + 1;
        nl = buffer.indexOf("\n", start);
        if (!line.trim()) continue;
        // A type guard, not zod: this runs for each of 10,000 streamed lines and must not slow the reader.
        const msg: unknown = JSON.parse(line);
        if (isJsonObject(msg)) this.dispatch(msg, at);
        else throw new Error(`agent wrote a non-object line: ${line.slice(0, 200)}`);
      }
      buffer = buffer.slice(start);
    }
  }

  private dispatch(msg: Json, at: number): void {
    if (typeof msg.id === "number" && ("result" in msg || "error" in msg) && !("method" in msg)) {
      this.pending.get(msg.id)?.({ msg, at });
      this.pending.delete(msg.id);
      return;
    }
    this.onMessage?.(msg, at);
    if ("id" in msg && typeof msg.method === "string") this.answer(msg);
  }

  /** The agent asks for permission before risky tools: allow once; anything else is not offered by this client. */
  private answer(msg: Json): void {
    if (msg.method === "session/request_permission") {
      const options = PermissionParams.safeParse(msg.params).data?.options ?? [];
      const allow = options.find((o) => o.kind === "allow_once") ?? options[0];
      this.write({ jsonrpc: "2.0", id: msg.id, result: { outcome: allow ? { outcome: "selected", optionId: allow.optionId } : { outcome: "cancelled" } } });
      return;
    }
    this.write({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } });
  }

  private write(msg: Json): void {
    this.proc.stdin.write(`${JSON.stringify(msg)}\n`);
    this.proc.stdin.flush();
  }

  /** Sends a request; resolves with the response and its arrival time, plus when it was sent. */
  async request(method: string, params: unknown = {}, timeoutMs = 30_000): Promise<Timed & { sentAt: number }> {
    const id = this.nextId++;
    const response = new Promise<Timed>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no response to ${method} within ${timeoutMs} ms; stderr: ${this.stderrTail.trim()}`)), timeoutMs);
      this.pending.set(id, (t) => {
        clearTimeout(timer);
        resolve(t);
      });
    });
    const sentAt = performance.now();
    this.write({ jsonrpc: "2.0", id, method, params });
    const r = await response;
    return { ...r, sentAt };
  }

  /** Like request, but a JSON-RPC error throws. */
  async call(method: string, params: unknown = {}, timeoutMs?: number): Promise<Json & { __sentAt: number; __at: number }> {
    const r = await this.request(method, params, timeoutMs);
    if (r.msg.error !== undefined) {
      const error = RpcError.safeParse(r.msg.error);
      throw new Error(`${method} failed: ${error.success ? `${error.data.code} ${error.data.message}` : JSON.stringify(r.msg.error)}`);
    }
    return { ...JsonObject.parse(r.msg.result ?? {}), __sentAt: r.sentAt, __at: r.at };
  }

  /** initialize, then wait until the SDK app behind the front has loaded (an unknown method answers -32601 from it). */
  async ready(): Promise<void> {
    await this.call("initialize", { protocolVersion: 1, clientCapabilities: {}, clientInfo: { name: "bench", version: "1" } });
    await this.request("bench/ping");
  }

  async close(): Promise<void> {
    this.proc.stdin.end();
    const exited = await Promise.race([this.proc.exited, Bun.sleep(3000).then(() => null)]);
    if (exited === null) this.proc.kill("SIGKILL");
    await this.done.catch(() => undefined);
  }
}
