// Streaming overhead: 10,000 tiny SSE chunks from the loopback fake server read through createOpenAiChatClient
// (SDK + validation + accumulation + retry wrapper) versus a bare fetch + line splitter + JSON.parse of the same
// stream, median of 5 in the same run. Run: bun bench/streaming.bench.ts
import { createOpenAiChatClient } from "../src/llm/openai-chat.ts";
import { reply, startFakeLlm } from "../test/helpers/fake-llm-server.ts";

const CHUNKS = 10_000;
const RUNS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The floor: what any SSE consumer must do (read, split lines, parse JSON, take the delta). */
async function readWithFetch(url: string): Promise<number> {
  const res = await fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: "go" }], stream: true }),
  });
  if (!res.body) throw new Error("no body");
  const decoder = new TextDecoder();
  let buffer = "";
  let text = 0;
  for await (const bytes of res.body) {
    buffer += decoder.decode(bytes, { stream: true });
    let nl = buffer.indexOf("\n");
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.startsWith("data: ") && line !== "data: [DONE]") {
        const parsed: unknown = JSON.parse(line.slice(6));
        const content = extractContent(parsed);
        if (content) text += content.length;
      }
      nl = buffer.indexOf("\n");
    }
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

export type StreamingBenchResult = { clientMs: number; fetchMs: number; ratio: number; chunks: number };

export async function benchStreamingClient(): Promise<StreamingBenchResult> {
  const server = await startFakeLlm();
  try {
    const client = createOpenAiChatClient({ baseUrl: server.url, apiKey: null });
    const viaClient = async (): Promise<number> => {
      server.enqueue(reply().chunks(CHUNKS));
      let text = 0;
      for await (const chunk of client.stream({ model: "fake-model", messages: [{ role: "user", content: "go" }], tools: [] }, new AbortController().signal)) {
        if (chunk.type === "text") text += chunk.text.length;
      }
      return text;
    };
    const viaFetch = (): Promise<number> => {
      server.enqueue(reply().chunks(CHUNKS));
      return readWithFetch(server.url);
    };
    const time = async (fn: () => Promise<number>): Promise<number> => {
      const t0 = performance.now();
      const text = await fn();
      if (text !== CHUNKS) throw new Error(`expected ${CHUNKS} characters, got ${text}`);
      return performance.now() - t0;
    };
    await time(viaClient); // warm-up: SDK import, JIT, connection pool
    await time(viaFetch);
    const clientRuns: number[] = [];
    const fetchRuns: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Interleaved so drift on a busy machine hits both sides alike.
      clientRuns.push(await time(viaClient));
      fetchRuns.push(await time(viaFetch));
    }
    const clientMs = median(clientRuns);
    const fetchMs = median(fetchRuns);
    return { clientMs, fetchMs, ratio: clientMs / fetchMs, chunks: CHUNKS };
  } finally {
    await server.stop();
  }
}

if (import.meta.main) {
  const r = await benchStreamingClient();
  console.log(`streaming ${r.chunks} chunks, median of ${RUNS}:`);
  console.log(`  createOpenAiChatClient: ${r.clientMs.toFixed(1)} ms (${((r.clientMs * 1000) / r.chunks).toFixed(2)} µs/chunk)`);
  console.log(`  fetch + line splitter:  ${r.fetchMs.toFixed(1)} ms (${((r.fetchMs * 1000) / r.chunks).toFixed(2)} µs/chunk)`);
  console.log(`  ratio client / fetch:   ${r.ratio.toFixed(2)}`);
}
