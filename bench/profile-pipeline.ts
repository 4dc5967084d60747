// Where the streaming overhead goes: the same 10,000-chunk reply read by successively larger slices of the
// agent, each in this process against the stream server in its own process, interleaved, medians of RUNS.
// Not part of `bun run bench` (a diagnosis, not a target). Run: bun bench/profile-pipeline.ts
import * as acp from "@agentclientprotocol/sdk/unstable";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { z } from "zod";
import { Services } from "../src/app/services.ts";
import { toSessionUpdate } from "../src/bridge/to-session-update.ts";
import { createOpenAiChatClient } from "../src/llm/openai-chat.ts";
import { runAcpAgent } from "../src/protocol/agent.ts";
import { AgentProcess, benchEnv, benchHome, ensureBinary } from "./agent-process.ts";
import { promptTimed, readPlain, startStreamServer } from "./pipeline.bench.ts";
import { median } from "./types.ts";

const CHUNKS = 10_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const encoder = new TextEncoder();
const request = { model: "fake-model", messages: [{ role: "user" as const, content: "go" }], tools: [] };
const gates = { notices: false, compaction: false };

const server = await startStreamServer(CHUNKS);
const home = benchHome(server.url);
const env = benchEnv(home);

async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** B: the LLM client alone. */
async function clientOnly(): Promise<void> {
  const client = createOpenAiChatClient({ baseUrl: server.url, apiKey: null });
  for await (const _chunk of client.stream(request, new AbortController().signal));
}

/** C: + mapping and serialising each notification (what must happen per chunk, without the SDK). */
async function clientSerialise(): Promise<void> {
  const client = createOpenAiChatClient({ baseUrl: server.url, apiKey: null });
  let bytes = 0;
  const emit = async (text: string) => {
    const update = toSessionUpdate({ type: "message_chunk", messageId: "m", text }, gates);
    bytes += encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update } })}\n`).length;
  };
  for await (const chunk of client.stream(request, new AbortController().signal)) if (chunk.type === "text" && chunk.text) await emit(chunk.text);
  if (bytes === 0) throw new Error("nothing serialised");
}

/** D: + the ACP SDK's notify (connection write queue, ndJsonStream, two WritableStreams), bytes discarded. */
async function clientSdk(): Promise<void> {
  const app = acp.agent({ name: "bench" }).onRequest("bench/stream", z.object({}), async ({ client: ctx }) => {
    const client = createOpenAiChatClient({ baseUrl: server.url, apiKey: null });
    for await (const chunk of client.stream(request, new AbortController().signal)) {
      if (chunk.type !== "text" || !chunk.text) continue;
      const update = toSessionUpdate({ type: "message_chunk", messageId: "m", text: chunk.text }, gates);
      if (update) await ctx.notify("session/update", { sessionId: "s", update });
    }
    return {};
  });
  await runDiscarding((input, write) => app.connect(acp.ndJsonStream(new WritableStream({ write }), input)).closed, [
    { jsonrpc: "2.0", id: 1, method: "bench/stream", params: {} },
  ]);
}

/** J: D, but text deltas coalesced until the event loop turns (one notification per network read, not per delta). */
let coalescedNotifications = 0;
async function clientSdkCoalesced(): Promise<void> {
  const app = acp.agent({ name: "bench" }).onRequest("bench/stream", z.object({}), async ({ client: ctx }) => {
    const client = createOpenAiChatClient({ baseUrl: server.url, apiKey: null });
    let pending = "";
    let flushing: Promise<void> | null = null;
    const flush = async () => {
      const text = pending;
      pending = "";
      flushing = null;
      coalescedNotifications++;
      const update = toSessionUpdate({ type: "message_chunk", messageId: "m", text }, gates);
      if (update) await ctx.notify("session/update", { sessionId: "s", update });
    };
    for await (const chunk of client.stream(request, new AbortController().signal)) {
      if (chunk.type !== "text" || !chunk.text) continue;
      pending += chunk.text;
      flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(flush);
    }
    await flushing;
    if (pending) await flush();
    return {};
  });
  coalescedNotifications = 0;
  await runDiscarding((input, write) => app.connect(acp.ndJsonStream(new WritableStream({ write }), input)).closed, [
    { jsonrpc: "2.0", id: 1, method: "bench/stream", params: {} },
  ]);
}

/** E: the whole agent in this process (front, SDK app, session, loop, SQLite), output bytes discarded. */
let services: Services | undefined;
async function wholeAgentInProcess(): Promise<void> {
  services ??= await new Services(env).load();
  const s = services;
  await runDiscarding((input, write) => runAcpAgent(input, write, s), [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } },
    { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: tmpdir(), mcpServers: [] } },
    { jsonrpc: "2.0", id: 3, method: "session/prompt", params: { sessionId: "$session", prompt: [{ type: "text", text: "go" }] } },
  ], true);
}
const wholeTimes: number[] = [];

/**
 * Feeds `messages` one at a time (each after the previous response); the prompt is timed from when it is written
 * to when its response is seen. Output is scanned for responses only (no JSON.parse of notifications).
 */
async function runDiscarding(
  start: (input: ReadableStream<Uint8Array>, write: (bytes: Uint8Array) => void) => Promise<void>,
  messages: Record<string, unknown>[],
  recordLast = false,
): Promise<void> {
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const input = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const decoder = new TextDecoder();
  let waiting: { id: number; resolve: (line: string) => void } | undefined;
  const write = (bytes: Uint8Array) => {
    if (!waiting) return;
    // The SDK writes whole lines, one message per write: only a response carries `"id":N,`.
    const text = decoder.decode(bytes);
    if (!text.includes(`"id":${waiting.id},`)) return;
    const w = waiting;
    waiting = undefined;
    w.resolve(text);
  };
  const running = start(input, write);
  let sessionId = "";
  for (const [i, message] of messages.entries()) {
    const id = Number(message.id);
    const line = new Promise<string>((resolve) => (waiting = { id, resolve }));
    const text = JSON.stringify(message).replace("$session", sessionId);
    const t0 = performance.now();
    controller?.enqueue(encoder.encode(`${text}\n`));
    const response = await line;
    if (recordLast && i === messages.length - 1) wholeTimes.push(performance.now() - t0);
    const m = /"sessionId":"([^"]+)"/.exec(response);
    if (m?.[1]) sessionId = m[1];
  }
  controller?.close();
  await running;
}

/** F: the compiled binary (the pipeline row), reused across runs. */
const agent = new AgentProcess([await ensureBinary()], env);
await agent.ready();
const sessionId = String((await agent.call("session/new", { cwd: tmpdir(), mcpServers: [] })).sessionId);
const binary = async () => {
  await promptTimed(agent, sessionId);
};

/** G: this process's share of F: splitting and JSON.parse of the 10,000 notification lines. */
let capturedLines: string[] = [];
async function clientParseOnly(): Promise<void> {
  for (const line of capturedLines) JSON.parse(line);
}

/** H, I: a process writing the same number of notification lines, per line vs coalesced per tick. */
const writers = await Promise.all(
  ["each", "tick"].map(async (mode) => {
    const p = new AgentProcess(["bun", `${import.meta.dir}/fixtures/line-writer.ts`, mode], env);
    await p.request("warm");
    return p;
  }),
);
const lineWriter = (i: number) => async () => {
  let lines = 0;
  const w = writers[i]!;
  w.onMessage = () => void lines++;
  await w.request("go");
  if (lines !== CHUNKS) throw new Error(`line writer: ${lines} lines`);
};

const contenders: [string, () => Promise<void>][] = [
  ["A plain fetch reader", async () => void (await readPlain(server.url))],
  ["B + LLM client (createOpenAiChatClient)", clientOnly],
  ["C + toSessionUpdate + JSON.stringify + encode", clientSerialise],
  ["D + ACP SDK notify (bytes discarded)", clientSdk],
  ["J = D with deltas coalesced per event-loop turn", clientSdkCoalesced],
  ["E whole agent in-process (prompt, bytes discarded)", wholeAgentInProcess],
  ["F compiled binary over stdio (prompt → response)", binary],
  ["H 10,000 lines over a pipe, one stdout.write per line", lineWriter(0)],
  ["I 10,000 lines over a pipe, one stdout.write per tick", lineWriter(1)],
];
try {
  // Capture one binary run's lines for G.
  agent.onMessage = null;
  capturedLines = Array.from({ length: CHUNKS }, (_, i) =>
    JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: { sessionUpdate: "agent_message_chunk", messageId: crypto.randomUUID(), content: { type: "text", text: i >= 0 ? "x" : "" } } } }),
  );
  contenders.push(["G (bench side) JSON.parse of 10,000 notification lines", clientParseOnly]);
  for (const [, fn] of contenders) await fn(); // warm-up
  const times = new Map<string, number[]>(contenders.map(([name]) => [name, []]));
  for (let i = 0; i < RUNS; i++) for (const [name, fn] of contenders) times.get(name)?.push(await timed(fn));
  let reads = 0;
  const res = await fetch(`${server.url}/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [], stream: true }) });
  for await (const _ of res.body ?? []) reads++;
  console.log(`network reads per reply: ${reads}; J sent ${coalescedNotifications} notifications per reply`);
  const floor = median(times.get(contenders[0]![0]) ?? []);
  console.log(`${CHUNKS} chunks, median of ${RUNS} (E also timed prompt-only: ${median(wholeTimes.slice(1)).toFixed(1)} ms)`);
  for (const [name, xs] of times) {
    const m = median(xs);
    console.log(`  ${name.padEnd(58)} ${m.toFixed(1).padStart(7)} ms  ${(m / floor).toFixed(2)}×  ${((m * 1000) / CHUNKS).toFixed(2)} µs/chunk`);
  }
} finally {
  await agent.close();
  for (const w of writers) await w.close();
  services?.close();
  await server.stop();
  rmSync(home, { recursive: true, force: true });
}
