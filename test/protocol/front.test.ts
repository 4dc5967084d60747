// protocol/front.ts over real NDJSON bytes: initialize answered by hand, every later line parsed once and handed
// on as an object, and the protocol errors the SDK's own line reader gave for the rest.
import { describe, expect, test } from "bun:test";
import { runFront } from "../../src/protocol/front.ts";

/** Feeds `lines` and ends the input; the app answers each request after `answerAfterMs` (never when undefined). */
async function drive(lines: string[], answerAfterMs?: number) {
  const written: unknown[] = [];
  const delivered: unknown[] = [];
  const encoder = new TextEncoder();
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(lines.map((l) => `${l}\n`).join("")));
      controller.close();
    },
  });
  const started = performance.now();
  await runFront(input, (bytes) => written.push(...new TextDecoder().decode(bytes).trim().split("\n").map((l) => JSON.parse(l))), {
    initialize: () => ({ protocolVersion: 1 }),
    async connect(messages, send) {
      const closed = (async () => {
        for await (const m of messages) {
          delivered.push(m);
          if (answerAfterMs !== undefined && m.id !== undefined) setTimeout(() => send({ jsonrpc: "2.0", id: m.id, result: { echoed: m.method } }), answerAfterMs);
        }
      })();
      return { closed };
    },
  });
  return { written, delivered, ms: performance.now() - started };
}

const init = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: 1 } });

describe("the front", () => {
  test("after initialize, lines reach the app parsed, in order; a leading byte-order mark is dropped", async () => {
    const prompt = { jsonrpc: "2.0", id: 2, method: "session/prompt", params: { sessionId: "s", prompt: [] } };
    const cancel = { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s" } };
    const { written, delivered } = await drive([`\uFEFF${init(1)}`, JSON.stringify(prompt), `\uFEFF${JSON.stringify(cancel)}`, "   "]);
    expect(written).toEqual([{ jsonrpc: "2.0", id: 1, result: { protocolVersion: 1 } }]);
    expect(delivered).toEqual([prompt, cancel]);
  });

  test("garbage, batches and scalars get the SDK's errors; a later initialize is still answered here", async () => {
    const { written, delivered } = await drive([init(1), "{not json", "[1,2]", "42", '"text"', init(3)]);
    expect(written).toEqual([
      { jsonrpc: "2.0", id: 1, result: { protocolVersion: 1 } },
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request: JSON-RPC batches are not supported" } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request", data: 42 } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request", data: "text" } },
      { jsonrpc: "2.0", id: 3, result: { protocolVersion: 1 } },
    ]);
    expect(delivered).toEqual([]);
  });

  test("when the input ends, requests already read are still answered, for a short while", async () => {
    const request = (id: number, method: string) => JSON.stringify({ jsonrpc: "2.0", id, method, params: {} });
    const quick = await drive([init(1), request(2, "session/new"), request(3, "session/list")], 10);
    expect(quick.written.slice(1)).toEqual([
      { jsonrpc: "2.0", id: 2, result: { echoed: "session/new" } },
      { jsonrpc: "2.0", id: 3, result: { echoed: "session/list" } },
    ]);
    // An app that never answers does not hold the exit past the grace.
    const stuck = await drive([init(1), request(2, "session/prompt")]);
    expect(stuck.written).toHaveLength(1);
    expect(stuck.ms).toBeLessThan(500);
  });

  test("before initialize, requests are refused by id and nothing reaches the app", async () => {
    const { written, delivered } = await drive([JSON.stringify({ jsonrpc: "2.0", id: 7, method: "session/new", params: {} })]);
    expect(written).toEqual([
      { jsonrpc: "2.0", id: 7, error: { code: -32600, message: "Invalid request: ACP connection must be initialized before 'session/new'" } },
    ]);
    expect(delivered).toEqual([]);
  });
});
