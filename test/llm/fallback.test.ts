import { describe, expect, test } from "bun:test";
import { withFallbacks, type FallbackTarget } from "../../src/llm/fallback.ts";
import { LlmError, type LlmChunk, type LlmClient } from "../../src/llm/types.ts";

function client(behaviour: "ok" | LlmError, seen: string[]): LlmClient {
  return {
    async *stream(req) {
      seen.push(req.model);
      if (behaviour !== "ok") throw behaviour;
      yield { type: "text", text: `from ${req.model}` } satisfies LlmChunk;
    },
  };
}

const collect = async (c: LlmClient) => {
  const out: string[] = [];
  for await (const ch of c.stream({ model: "ignored", messages: [], tools: [] }, new AbortController().signal)) if (ch.type === "text") out.push(ch.text);
  return out;
};

describe("fallback providers", () => {
  test("a failing provider hands over to the next one, which then serves the rest of the turn", async () => {
    const seen: string[] = [];
    const switches: string[] = [];
    const queue: FallbackTarget[] = [
      { client: client(new LlmError("server", "also down"), seen), provider: "B", model: "b" },
      { client: client("ok", seen), provider: "C", model: "c" },
    ];
    const c = withFallbacks({ client: client(new LlmError("rate_limit", "busy"), seen), provider: "A", model: "a" }, async () => queue.shift(), async (to) => {
      switches.push(to.provider);
    });
    expect(await collect(c)).toEqual(["from c"]);
    expect(await collect(c)).toEqual(["from c"]);
    expect(seen).toEqual(["a", "b", "c", "c"]);
    expect(switches).toEqual(["B", "C"]);
  });

  test("requests the fallback cannot fix, and exhausted fallbacks, fail as before", async () => {
    const seen: string[] = [];
    const bad = withFallbacks({ client: client(new LlmError("bad_request", "nope"), seen), provider: "A", model: "a" }, async () => ({ client: client("ok", seen), provider: "B", model: "b" }), async () => {});
    expect(collect(bad)).rejects.toThrow("nope");
    const none = withFallbacks({ client: client(new LlmError("server", "down"), seen), provider: "A", model: "a" }, async () => undefined, async () => {});
    expect(collect(none)).rejects.toThrow("down");
  });
});
