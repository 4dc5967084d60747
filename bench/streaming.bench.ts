// Streaming overhead of createOpenAiChatClient (fetch + eventsource-parser + validation + accumulation + retry
// wrapper) against a bare fetch + line splitter + JSON.parse of the same 10,000-delta stream, two ways:
//   pipeline: both read the loopback fake LLM server (which renders each frame; that cost is in both figures);
//   client alone: both read the same bytes pre-rendered into one static response, so only client-side work differs.
// Runs interleaved, medians of RUNS in the same process. Run: bun bench/streaming.bench.ts
import { createOpenAiChatClient } from "../src/llm/openai-chat.ts";
import { reply, startFakeLlm } from "../test/helpers/fake-llm-server.ts";
import { ms, type BenchRow } from "./types.ts";

const CHUNKS = 10_000;
const RUNS = 9;
/** Our target for the whole pipeline: at most this many times the bare reader. */
export const STREAMING_TARGET_RATIO = 1.3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
}

const BODY = JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: "go" }], stream: true });

/** The floor: what any SSE consumer must do (read, split lines, parse JSON, take the delta). */
async function readWithFetch(url: string): Promise<number> {
  const res = await fetch(`${url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: BODY });
  if (!res.body) throw new Error("no body");
  const decoder = new TextDecoder();
  let buffer = "";
  let text = 0;
  for await (const bytes of res.body) {
    buffer += decoder.decode(bytes, { stream: true });
    let start = 0;
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const line = buffer.slice(start, nl);
      if (line.startsWith("data: ") && line !== "data: [DONE]") {
        const parsed: unknown = JSON.parse(line.slice(6));
        const content = extractContent(parsed);
        if (content) text += content.length;
      }
      start = nl + 1;
      nl = buffer.indexOf("\n", start);
    }
    buffer = buffer.slice(start);
  }
  return text;
}

function extractContent(chunk: unknown): string | undefined {
  if (typeof chunk !== "object" || chunk === null || !("choices" in chunk) || !Array.isArray(chunk.choices)) return undefined;
  const first: unknown = chunk.choices[0];
  if (typeof first !== "object" || first === null || !("delta" in first)) return undefined;
  const delta: unknown = first.delta;
  if (typeof delta !== "object" || delta === null || !("content" in delta)) return undefined;
  return typeof delta.content === "string" ? delta.content : undefined;
}

async function readWithClient(url: string): Promise<number> {
  const client = createOpenAiChatClient({ baseUrl: url, apiKey: null });
  let text = 0;
  for await (const chunk of client.stream({ model: "fake-model", messages: [{ role: "user", content: "go" }], tools: [] }, new AbortController().signal)) {
    if (chunk.type === "text") text += chunk.text.length;
  }
  return text;
}

export type StreamingPair = { clientMs: number; fetchMs: number; ratio: number };
export type StreamingBenchResult = StreamingPair & { chunks: number; runs: number; clientAlone: StreamingPair };

async function time(fn: () => Promise<number>): Promise<number> {
  const t0 = performance.now();
  const text = await fn();
  const elapsed = performance.now() - t0;
  if (text !== CHUNKS) throw new Error(`expected ${CHUNKS} characters, got ${text}`);
  return elapsed;
}

/** Warm-up once each, then RUNS interleaved pairs (so drift on a busy machine hits both sides alike). */
async function pair(viaClient: () => Promise<number>, viaFetch: () => Promise<number>): Promise<StreamingPair> {
  await time(viaClient);
  await time(viaFetch);
  const clientRuns: number[] = [];
  const fetchRuns: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    clientRuns.push(await time(viaClient));
    fetchRuns.push(await time(viaFetch));
  }
  const clientMs = median(clientRuns);
  const fetchMs = median(fetchRuns);
  return { clientMs, fetchMs, ratio: clientMs / fetchMs };
}

export async function benchStreamingClient(): Promise<StreamingBenchResult> {
  const server = await startFakeLlm();
  let frozen: ReturnType<typeof Bun.serve> | undefined;
  try {
    const pipeline = await pair(
      () => {
        server.enqueue(reply().chunks(CHUNKS));
        return readWithClient(server.url);
      },
      () => {
        server.enqueue(reply().chunks(CHUNKS));
        return readWithFetch(server.url);
      },
    );
    // The same stream, rendered once by the fake server, then served as a single static body.
    server.enqueue(reply().chunks(CHUNKS));
    const res = await fetch(`${server.url}/chat/completions`, { method: "POST", body: BODY });
    const bytes = new Uint8Array(await res.arrayBuffer());
    frozen = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => new Response(bytes, { headers: { "content-type": "text/event-stream" } }),
    });
    const frozenUrl = `http://127.0.0.1:${frozen.port}/v1`;
    const clientAlone = await pair(() => readWithClient(frozenUrl), () => readWithFetch(frozenUrl));
    return { ...pipeline, chunks: CHUNKS, runs: RUNS, clientAlone };
  } finally {
    await frozen?.stop(true);
    await server.stop();
  }
}

/** The table rows: the LLM client against a bare fetch reader, with the server rendering frames and from one static body. */
export async function benchStreamingRows(): Promise<BenchRow[]> {
  const r = await benchStreamingClient();
  return [
    {
      name: `LLM client alone: createOpenAiChatClient vs fetch + line splitter, ${CHUNKS.toLocaleString("en")} deltas from the in-process fake server (median of ${RUNS})`,
      measured: ms(r.clientMs),
      baseline: ms(r.fetchMs),
      ratio: r.ratio,
      target: `≤ ${STREAMING_TARGET_RATIO}×`,
      met: r.ratio <= STREAMING_TARGET_RATIO,
    },
    {
      name: "LLM client alone, same bytes from one static body (client-side work only; context)",
      measured: ms(r.clientAlone.clientMs),
      baseline: ms(r.clientAlone.fetchMs),
      ratio: r.clientAlone.ratio,
      target: "context",
      met: null,
    },
  ];
}

if (import.meta.main) {
  const r = await benchStreamingClient();
  const perChunk = (ms: number) => `${((ms * 1000) / r.chunks).toFixed(2)} µs/chunk`;
  const show = (title: string, p: StreamingPair) => {
    console.log(`${title}:`);
    console.log(`  createOpenAiChatClient: ${p.clientMs.toFixed(1)} ms (${perChunk(p.clientMs)})`);
    console.log(`  fetch + line splitter:  ${p.fetchMs.toFixed(1)} ms (${perChunk(p.fetchMs)})`);
    console.log(`  ratio client / fetch:   ${p.ratio.toFixed(2)}`);
  };
  console.log(`streaming ${r.chunks} chunks, median of ${r.runs}:`);
  show("pipeline (fake LLM server renders every frame)", r);
  show("client alone (same bytes from one static body)", r.clientAlone);
  console.log(`target: pipeline ratio ≤ ${STREAMING_TARGET_RATIO} — ${r.ratio <= STREAMING_TARGET_RATIO ? "met" : "NOT met"}`);
}
