// Generates JSON-RPC lines for the protocol fuzzer — valid-looking ACP calls, then mutated structurally
// (dropped fields, wrong types, huge strings, unknown methods) or textually (truncation, garbage, BOM) —
// and says what a correct agent must answer to each, by the rules of JSON-RPC 2.0 as ACP uses them.
import type { Rng } from "./prng.ts";

/** What the agent owes a line: a response with this id, a response with id null, or nothing. */
export type Expect = { kind: "answer"; id: string | number } | { kind: "null" } | { kind: "silent" };
export type FuzzCase = { line: string; expect: Expect; label: string };

export type FuzzPools = {
  /** Sessions that exist and are open (prompts to them run real turns). */
  liveSessions: string[];
  /** Sessions that were closed or deleted, and ids that never existed. */
  deadSessions: string[];
  /** Existing directories usable as cwd. */
  dirs: string[];
};

const METHODS = [
  "session/new",
  "session/load",
  "session/resume",
  "session/fork",
  "session/list",
  "session/close",
  "session/delete",
  "session/set_mode",
  "session/set_config_option",
  "session/prompt",
  "authenticate",
  "logout",
] as const;
const UNKNOWN_METHODS = ["session/set_model", "_hermes/unknown", "$/ping", "rpc.discover", "", " ", "SESSION/NEW", "session/new ", "fs/read_text_file", "💥", "session//prompt"];
const NOTIFICATIONS = ["session/cancel", "$/cancel_request", "_hermes/notify", "session/update", "unknown/notification"];
const WEIRD_STRINGS = ["", " ", "\u0000", "\ud800", "💥🔥", "../../../../etc/passwd", "C:\\Windows\\System32", "null", "undefined", "%s%n", "'; DROP TABLE messages; --", "\u202e", "a\tb\rc"];

/** Loopback-only guard: nothing here may name a real executable, so fuzzed MCP specs never spawn. */
const NO_SUCH_COMMAND = "/nonexistent/hermes-fuzz-mcp";

export class FuzzGenerator {
  private n = 0;
  constructor(
    private readonly rng: Rng,
    private readonly pools: FuzzPools,
    /** Largest huge string to embed; the spawned round keeps this small to spare the pipe. */
    private readonly maxHuge = 1_000_000,
  ) {}

  next(): FuzzCase {
    const r = this.rng.next();
    if (r < 0.3) return this.finish(this.request(), "valid");
    if (r < 0.6) return this.finish(this.mutate(this.request()), "mutated");
    if (r < 0.7) return this.finish(this.unknownMethod(), "unknown-method");
    if (r < 0.78) return this.finish(this.notification(), "notification");
    if (r < 0.9) return this.textual();
    if (r < 0.95) return this.finish(this.oddValue(), "odd-value");
    return this.finish(this.envelope(), "envelope");
  }

  private id(): string | number {
    this.n++;
    const r = this.rng.next();
    if (r < 0.6) return `fz-${this.rng.seed}-${this.n}`;
    if (r < 0.95) return 1_000_000 + this.n;
    return 1_000_000 + this.n + 0.5;
  }

  private finish(value: unknown, label: string): FuzzCase {
    const line = JSON.stringify(value) ?? "null";
    return { line, expect: classify(line), label };
  }

  private sessionId(): string {
    const r = this.rng.next();
    if (r < 0.45 && this.pools.liveSessions.length) return this.rng.pick(this.pools.liveSessions);
    if (r < 0.8 && this.pools.deadSessions.length) return this.rng.pick(this.pools.deadSessions);
    if (r < 0.9) return crypto.randomUUID();
    return this.rng.pick(WEIRD_STRINGS);
  }

  private cwd(): string {
    return this.rng.chance(0.8) ? this.rng.pick(this.pools.dirs) : this.rng.pick([...WEIRD_STRINGS, "relative/dir", "/", "/nonexistent/dir"]);
  }

  private promptBlocks(): unknown[] {
    const text = this.rng.pick(["hi", "hello there", "/help", "/context", "/version", "/steer go on", "/queue later", "/model", "", "  ", "💥"]);
    const blocks: unknown[] = [{ type: "text", text }];
    if (this.rng.chance(0.2)) blocks.push({ type: "resource_link", uri: "file:///nonexistent/x.txt", name: "x.txt" });
    if (this.rng.chance(0.1)) blocks.push({ type: "resource", resource: { uri: "file:///tmp/y.txt", text: "embedded" } });
    if (this.rng.chance(0.05)) blocks.push({ type: "image", mimeType: "image/png", data: "bm90IGFuIGltYWdl" });
    if (this.rng.chance(0.05)) blocks.push({ type: "mystery", payload: 1 });
    return blocks;
  }

  private params(method: (typeof METHODS)[number]): Record<string, unknown> {
    switch (method) {
      case "session/new":
        return { cwd: this.cwd(), mcpServers: this.rng.chance(0.1) ? [{ name: "nope", command: NO_SUCH_COMMAND, args: [], env: [] }] : [] };
      case "session/load":
        return { sessionId: this.sessionId(), cwd: this.cwd(), mcpServers: [] };
      case "session/resume":
      case "session/fork":
        return { sessionId: this.sessionId(), cwd: this.cwd() };
      case "session/list":
        return this.rng.chance(0.5) ? {} : { cwd: this.cwd(), ...(this.rng.chance(0.3) ? { cursor: this.rng.pick(["", "garbage", "eyJvZmZzZXQiOjk5OTl9", "50"]) } : {}) };
      case "session/close":
      case "session/delete":
        return { sessionId: this.sessionId() };
      case "session/set_mode":
        return { sessionId: this.sessionId(), modeId: this.rng.pick(["default", "accept_edits", "dont_ask", "bogus", ""]) };
      case "session/set_config_option":
        return {
          sessionId: this.sessionId(),
          configId: this.rng.pick(["mode", "model", "edit_approval_policy", "thought_level", "nope"]),
          value: this.rng.pick<unknown>(["default", "dont_ask", "custom:fake-model", "fake-model-large", "", "bogus", true, 3]),
        };
      case "session/prompt":
        return { sessionId: this.sessionId(), prompt: this.promptBlocks() };
      case "authenticate":
        return { methodId: this.rng.pick(["hermes-setup", "custom", "openrouter", "", "nope"]) };
      case "logout":
        return {};
    }
  }

  private request(): Record<string, unknown> {
    // Prompts to live sessions run real turns: keep them a minority so the run stays fast.
    let method = this.rng.pick(METHODS);
    if (method === "session/new" && this.rng.chance(0.7)) method = "session/list";
    return { jsonrpc: "2.0", id: this.id(), method, params: this.params(method) };
  }

  private unknownMethod(): Record<string, unknown> {
    const method = this.rng.chance(0.2) ? `_x/${"m".repeat(this.rng.int(1, 5000))}` : this.rng.pick(UNKNOWN_METHODS);
    return { jsonrpc: "2.0", id: this.id(), method, params: this.rng.chance(0.5) ? {} : this.randomValue(2) };
  }

  private notification(): Record<string, unknown> {
    const method = this.rng.pick(NOTIFICATIONS);
    const params = this.rng.chance(0.6) ? { sessionId: this.sessionId(), requestId: this.rng.pick<unknown>(["fz-x", 1, null]) } : this.randomValue(2);
    return { jsonrpc: "2.0", method, params };
  }

  /** A response-shaped message (the client answering something the agent never asked). */
  private envelope(): unknown {
    return this.rng.pick<unknown>([
      { jsonrpc: "2.0", id: `stray-${this.n++}`, result: {} },
      { jsonrpc: "2.0", id: 999_999_999, error: { code: -32603, message: "stray" } },
      { jsonrpc: "2.0", result: { outcome: "selected" } },
      {},
      { jsonrpc: "2.0" },
      { jsonrpc: "2.0", method: "session/cancel" },
    ]);
  }

  private oddValue(): unknown {
    return this.rng.pick<unknown>([null, 0, -1, 1.5, true, false, "string", [], [1, 2], [{ jsonrpc: "2.0", id: 1, method: "session/list" }], "🔥"]);
  }

  huge(): string {
    const size = this.rng.pick([1_000, 10_000, 100_000, this.maxHuge]);
    return this.rng.pick(["a", "💥", "\\", "\"", "\u0000"]).repeat(Math.max(1, Math.floor(size / 2)));
  }

  randomValue(depth: number): unknown {
    const r = this.rng.int(0, depth > 0 ? 9 : 6);
    switch (r) {
      case 0:
        return null;
      case 1:
        return this.rng.chance(0.5);
      case 2:
        return this.rng.pick([0, -1, 2 ** 53, -(2 ** 31), 1e308, 3.14, Number.MIN_VALUE]);
      case 3:
        return this.rng.pick(WEIRD_STRINGS);
      case 4:
        return this.rng.chance(0.1) ? this.huge() : "x";
      case 5:
        return crypto.randomUUID();
      case 6:
        return this.rng.pick(["default", "session/prompt", "text", "file:///etc/hosts"]);
      case 7:
        return Array.from({ length: this.rng.int(0, 4) }, () => this.randomValue(depth - 1));
      case 8: {
        const o: Record<string, unknown> = {};
        for (let i = 0; i < this.rng.int(0, 4); i++) o[this.rng.pick(["a", "type", "sessionId", "__proto__", "constructor", "_meta", "text"])] = this.randomValue(depth - 1);
        return o;
      }
      default: {
        let v: unknown = 1;
        for (let i = 0; i < this.rng.pick([10, 100, 1000]); i++) v = this.rng.chance(0.5) ? [v] : { a: v };
        return v;
      }
    }
  }

  private mutate(msg: Record<string, unknown>): unknown {
    const times = this.rng.int(1, 3);
    let out: unknown = msg;
    for (let i = 0; i < times; i++) out = this.mutateOnce(out);
    return out;
  }

  private mutateOnce(value: unknown): unknown {
    const paths = collectPaths(value, 4);
    const r = this.rng.next();
    if (r < 0.3 && paths.length) return deleteAt(value, this.rng.pick(paths));
    if (r < 0.6 && paths.length) return setAt(value, this.rng.pick(paths), this.randomValue(2));
    if (r < 0.7 && paths.length) {
      const strings = paths.filter((p) => typeof getAt(value, p) === "string");
      if (strings.length) return setAt(value, this.rng.pick(strings), this.huge());
    }
    if (r < 0.8 && isRecord(value)) return { ...value, [this.rng.pick(["extra", "__proto__", "_meta", "result", "error"])]: this.randomValue(1) };
    if (r < 0.9 && isRecord(value)) return { ...value, jsonrpc: this.rng.pick<unknown>(["1.0", 2, null, "2.0 "]) };
    if (isRecord(value)) return { ...value, id: this.rng.pick<unknown>([{ x: 1 }, true, [1], null, `fz-id-${this.n++}`]) };
    return value;
  }

  private textual(): FuzzCase {
    const base = JSON.stringify(this.request());
    const r = this.rng.next();
    let line: string;
    if (r < 0.3) line = base.slice(0, this.rng.int(0, base.length - 1));
    else if (r < 0.5) {
      const at = this.rng.int(0, base.length);
      line = base.slice(0, at) + this.rng.pick(["{", "}", "\"", ",", ":", "\\", "\u0000", "\ud800", "\t", "]]", "\uFEFF", "\r"]) + base.slice(at);
    } else if (r < 0.6) line = `\uFEFF${base}`;
    else if (r < 0.7) line = `  ${base}\r`;
    else if (r < 0.8) line = base + base;
    else if (r < 0.9) line = Array.from({ length: this.rng.int(1, 200) }, () => String.fromCharCode(this.rng.int(1, 0xd7ff))).join("").replace(/[\n]/g, " ");
    else line = "[".repeat(this.rng.pick([10, 1000, 100_000]));
    return { line, expect: classify(line), label: "textual" };
  }
}

type Path = (string | number)[];
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function collectPaths(value: unknown, depth: number, prefix: Path = []): Path[] {
  if (depth === 0 || typeof value !== "object" || value === null) return [];
  const out: Path[] = [];
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  for (const [k, v] of entries) {
    out.push([...prefix, k]);
    out.push(...collectPaths(v, depth - 1, [...prefix, k]));
  }
  return out;
}

function getAt(value: unknown, path: Path): unknown {
  let cur: unknown = value;
  for (const k of path) cur = typeof cur === "object" && cur !== null ? (cur as Record<string | number, unknown>)[k] : undefined;
  return cur;
}

function setAt(value: unknown, path: Path, next: unknown): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? setAt(v, rest, next) : v));
  if (isRecord(value) && head !== undefined) return { ...value, [head]: setAt(value[head], rest, next) };
  return value;
}

function deleteAt(value: unknown, path: Path): unknown {
  if (path.length === 1) {
    const key = path[0];
    if (Array.isArray(value)) return value.filter((_, i) => i !== key);
    if (isRecord(value)) {
      const copy = { ...value };
      delete copy[String(key)];
      return copy;
    }
    return value;
  }
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? deleteAt(v, rest) : v));
  if (isRecord(value) && head !== undefined) return { ...value, [head]: deleteAt(value[head], rest) };
  return value;
}

const isId = (v: unknown): v is string | number | null => v === null || typeof v === "string" || (typeof v === "number" && Number.isFinite(v));

/**
 * What an initialized agent must answer to one line (JSON-RPC 2.0 §4–5 as ACP applies it): unparseable,
 * non-object, batch or malformed envelope → one error with id null; a request → one response with its id;
 * notifications and response-shaped messages → nothing.
 */
export function classify(line: string): Expect {
  if (!line.trim()) return { kind: "silent" };
  const text = new TextDecoder().decode(new TextEncoder().encode(line)).trim();
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { kind: "null" };
  }
  if (!isRecord(v)) return { kind: "null" };
  const hasMethod = "method" in v;
  if (v.jsonrpc === "2.0" && typeof v.method === "string") {
    if (!("id" in v)) return { kind: "silent" };
    if (isId(v.id)) return v.id === null ? { kind: "null" } : { kind: "answer", id: v.id };
  }
  if (!hasMethod && ("id" in v || "result" in v || "error" in v)) return { kind: "silent" };
  return { kind: "null" };
}
