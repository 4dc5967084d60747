// Streaming through the whole agent: one prompt whose reply is 10,000 one-character chunks, from the fake LLM
// server through the compiled dist/hermes-acp to this process as `agent_message_chunk` notifications, against a
// plain fetch + line splitter + JSON.parse reading the same server's same reply. The server runs in its own
// process so that neither contender shares a thread with it. Interleaved, medians. Run: bun bench/pipeline.bench.ts
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentProcess, benchConfig, benchEnv, benchHome, ensureBinary, type Json } from "./agent-process.ts";
import { median, ms, type BenchRow } from "./types.ts";

const CHUNKS = 10_000;
const RUNS = Number(process.env.BENCH_PIPELINE_RUNS ?? 31);
const RATIO_TARGET = 1.3;
const FIRST_CHUNK_TARGET_MS = 5;
/** A pause between the measured requests, so neither side's leftover work lands in the other's time. */
const IDLE_BETWEEN_MS = 50;

export type StreamTiming = {
  firstMs: number;
  lastMs: number;
  doneMs: number;
  chunks: number;
  /** Start (prompt or fetch) → the request reaching the server, when known. */
  requestMs?: number;
};

export type StreamServer = {
  url: string;
  /** Wall-clock arrival time (performance.timeOrigin + now, ms) of each request so far. */
  arrivals: number[];
  stop: () => Promise<void>;
};

/** Starts bench/fixtures/stream-server.ts in its own process; with `bodyFile`, it saves each request's body there. */
export async function startStreamServer(chunks = CHUNKS, bodyFile?: string): Promise<StreamServer> {
  const args = ["bun", join(import.meta.dir, "fixtures/stream-server.ts"), String(chunks), ...(bodyFile ? [bodyFile] : [])];
  const proc = Bun.spawn(args, { stdout: "pipe", stderr: "inherit" });
  const arrivals: number[] = [];
  let resolveUrl: (url: string) => void = () => undefined;
  const url = new Promise<string>((resolve, reject) => {
    resolveUrl = resolve;
    setTimeout(() => reject(new Error("stream server printed no URL within 10 s")), 10_000);
  });
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const bytes of proc.stdout) {
      buffer += decoder.decode(bytes, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (line.startsWith("http")) resolveUrl(line);
        else if (line) arrivals.push(Number(line));
      }
    }
  })();
  return {
    url: await url,
    arrivals,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** The wall-clock time of a performance.now() reading, comparable with StreamServer.arrivals. */
const wall = (t: number) => performance.timeOrigin + t;

const BODY = JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: "go" }], stream: true });

function deltaText(line: string): string | undefined {
  if (!line.startsWith("data: ") || line === "data: [DONE]") return undefined;
  const parsed: unknown = JSON.parse(line.slice(6));
  if (typeof parsed !== "object" || parsed === null || !("choices" in parsed) || !Array.isArray(parsed.choices)) return undefined;
  const choice: unknown = parsed.choices[0];
  if (typeof choice !== "object" || choice === null || !("delta" in choice)) return undefined;
  const delta: unknown = choice.delta;
  if (typeof delta !== "object" || delta === null || !("content" in delta) || typeof delta.content !== "string") return undefined;
  return delta.content || undefined;
}

/** The floor: what any SSE consumer must do. Times from the request to the first and last text delta. */
export async function readPlain(url: string, server?: StreamServer, body = BODY): Promise<StreamTiming> {
  const seen = server?.arrivals.length ?? 0;
  const t0 = performance.now();
  const res = await fetch(`${url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body });
  if (!res.body) throw new Error("no body");
  const decoder = new TextDecoder();
  let buffer = "";
  let first = 0;
  let last = 0;
  let chunks = 0;
  for await (const bytes of res.body) {
    buffer += decoder.decode(bytes, { stream: true });
    let start = 0;
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const text = deltaText(buffer.slice(start, nl));
      if (text) {
        last = performance.now();
        if (!first) first = last;
        chunks += text.length;
      }
      start = nl + 1;
      nl = buffer.indexOf("\n", start);
    }
    buffer = buffer.slice(start);
  }
  const done = performance.now();
  const arrival = server?.arrivals[seen];
  return { firstMs: first - t0, lastMs: last - t0, doneMs: done - t0, chunks, ...(arrival ? { requestMs: arrival - wall(t0) } : {}) };
}

function chunkText(msg: Json): string | undefined {
  if (msg.method !== "session/update") return undefined;
  const params = msg.params;
  if (typeof params !== "object" || params === null || !("update" in params)) return undefined;
  const update: unknown = params.update;
  if (typeof update !== "object" || update === null || !("sessionUpdate" in update) || update.sessionUpdate !== "agent_message_chunk") return undefined;
  if (!("content" in update) || typeof update.content !== "object" || update.content === null || !("text" in update.content)) return undefined;
  return typeof update.content.text === "string" ? update.content.text : undefined;
}

/** One prompt through the agent: prompt sent → first / last agent_message_chunk, and → the prompt's response. */
export async function promptTimed(agent: AgentProcess, sessionId: string, server?: StreamServer): Promise<StreamTiming & { notifications: number }> {
  const seen = server?.arrivals.length ?? 0;
  let first = 0;
  let last = 0;
  let chunks = 0;
  let notifications = 0;
  agent.onMessage = (msg, at) => {
    notifications++;
    const t = chunkText(msg);
    if (t === undefined) return;
    last = at;
    if (!first) first = at;
    chunks += t.length;
  };
  const r = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  agent.onMessage = null;
  if (r.msg.error) throw new Error(`session/prompt failed: ${JSON.stringify(r.msg.error)}`);
  const arrival = server?.arrivals[seen];
  return {
    firstMs: first - r.sentAt,
    lastMs: last - r.sentAt,
    doneMs: r.at - r.sentAt,
    chunks,
    notifications,
    ...(arrival ? { requestMs: arrival - wall(r.sentAt) } : {}),
  };
}

export type PipelineResult = { agent: StreamTiming; plain: StreamTiming; runs: number; notificationsPerRun: number };

export async function measurePipeline(runs = RUNS): Promise<PipelineResult> {
  const binary = await ensureBinary();
  const home = benchHome();
  // The plain reader posts the very body the agent's request had (the server saves it here).
  const bodyFile = join(home, "last-request.json");
  const server = await startStreamServer(CHUNKS, bodyFile);
  writeFileSync(join(home, "config.yaml"), benchConfig(server.url));
  const agent = new AgentProcess([binary], benchEnv(home));
  try {
    await agent.ready();
    const session = await agent.call("session/new", { cwd: tmpdir(), mcpServers: [] });
    const sessionId = String(session.sessionId);
    const check = (t: StreamTiming, who: string) => {
      if (t.chunks !== CHUNKS) throw new Error(`${who}: expected ${CHUNKS} characters of text, got ${t.chunks}`);
      return t;
    };
    // Warm-up: first prompt (title, LLM client, JIT) and the first fetch.
    check(await promptTimed(agent, sessionId, server), "agent");
    check(await readPlain(server.url, server, readFileSync(bodyFile, "utf8")), "plain");
    const viaAgent: StreamTiming[] = [];
    const plain: StreamTiming[] = [];
    let notifications = 0;
    for (let i = 0; i < runs; i++) {
      const a = await promptTimed(agent, sessionId, server);
      notifications = a.notifications;
      viaAgent.push(check(a, "agent"));
      // The agent's work after a response (a garbage collection, the usage update) must not slow the floor.
      await Bun.sleep(IDLE_BETWEEN_MS);
      plain.push(check(await readPlain(server.url, server, readFileSync(bodyFile, "utf8")), "plain"));
      await Bun.sleep(IDLE_BETWEEN_MS);
    }
    const med = (xs: StreamTiming[]): StreamTiming => ({
      firstMs: median(xs.map((x) => x.firstMs)),
      lastMs: median(xs.map((x) => x.lastMs)),
      doneMs: median(xs.map((x) => x.doneMs)),
      chunks: CHUNKS,
      requestMs: median(xs.map((x) => x.requestMs ?? Number.NaN)),
    });
    return { agent: med(viaAgent), plain: med(plain), runs, notificationsPerRun: notifications };
  } finally {
    await agent.close();
    await server.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

export async function benchPipeline(): Promise<BenchRow[]> {
  const r = await measurePipeline();
  const ratio = r.agent.lastMs / r.plain.lastMs;
  const added = r.agent.firstMs - r.plain.firstMs;
  return [
    {
      name: `stream ${CHUNKS.toLocaleString("en")} chunks: prompt → last agent_message_chunk vs a plain fetch reader posting the same request body (median of ${r.runs}; response at ${ms(r.agent.doneMs)})`,
      measured: ms(r.agent.lastMs),
      baseline: ms(r.plain.lastMs),
      ratio,
      target: `≤ ${RATIO_TARGET}×`,
      met: ratio <= RATIO_TARGET,
    },
    {
      name: "stream: added time to first chunk (prompt → first agent_message_chunk minus fetch → first delta)",
      measured: ms(added),
      baseline: `agent ${ms(r.agent.firstMs)} (request at the server after ${ms(r.agent.requestMs ?? Number.NaN)}) vs plain ${ms(r.plain.firstMs)} (after ${ms(r.plain.requestMs ?? Number.NaN)})`,
      target: `≤ ${FIRST_CHUNK_TARGET_MS} ms`,
      met: added <= FIRST_CHUNK_TARGET_MS,
    },
  ];
}

if (import.meta.main) {
  const { printTable } = await import("./table.ts");
  const rows = await benchPipeline();
  printTable(rows);
}
