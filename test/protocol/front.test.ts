// protocol/front.ts over real NDJSON bytes: initialize answered by hand, every later line parsed once and handed
// on as an object, and the protocol errors the SDK's own line reader gave for the rest.
import { describe, expect, test } from "bun:test";
import { runFront } from "../../src/protocol/front.ts";

async function drive(lines: string[]) {
  const written: unknown[] = [];
  const delivered: unknown[] = [];
  const encoder = new TextEncoder();
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(lines.map((l) => `${l}\n`).join("")));
      controller.close();
    },
  });
  await runFront(input, (bytes) => written.push(...new TextDecoder().decode(bytes).trim().split("\n").map((l) => JSON.parse(l))), {
    initialize: () => ({ protocolVersion: 1 }),
    async connect(messages) {
      const closed = (async () => {
        for await (const m of messages) delivered.push(m);
      })();
      return { closed };
    },
  });
  return { written, delivered };
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

  test("before initialize, requests are refused by id and nothing reaches the app", async () => {
    const { written, delivered } = await drive([JSON.stringify({ jsonrpc: "2.0", id: 7, method: "session/new", params: {} })]);
    expect(written).toEqual([
      { jsonrpc: "2.0", id: 7, error: { code: -32600, message: "Invalid request: ACP connection must be initialized before 'session/new'" } },
    ]);
    expect(delivered).toEqual([]);
  });
});
