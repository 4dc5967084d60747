import { describe, expect, test } from "bun:test";
import { ChatStreamAccumulator, mapFinishReason } from "../../src/llm/openai-chat.ts";
import { createLlmClient } from "../../src/llm/create-client.ts";
import { httpError, mergeDeltas, parseRetryAfter, ProviderError, retryDelayMs, withRetry, type RetryInfo } from "../../src/llm/retry.ts";
import { LlmError, type LlmChunk } from "../../src/llm/types.ts";

const policy = { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 1000 };
const headers = (h: Record<string, string>) => new Headers(h);

describe("retry policy", () => {
  test("exponential backoff with jitter, capped; Retry-After wins up to the cap", () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n, undefined, () => 1))).toEqual([100, 200, 400, 800, 1000]);
    expect(retryDelayMs(policy, 1, undefined, () => 0)).toBe(50);
    expect(retryDelayMs(policy, 1, 300)).toBe(300);
    expect(retryDelayMs(policy, 1, 60_000)).toBe(1000);
  });

  test("Retry-After as seconds, HTTP date, or retry-after-ms", () => {
    expect(parseRetryAfter(headers({ "retry-after": "2" }))).toBe(2000);
    expect(parseRetryAfter(headers({ "retry-after-ms": "150" }))).toBe(150);
    expect(parseRetryAfter(headers({ "retry-after": new Date(10_000).toUTCString() }), 4_000)).toBe(6000);
    expect(parseRetryAfter(headers({}))).toBeUndefined();
    expect(parseRetryAfter(headers({ "retry-after": "soon" }))).toBeUndefined();
  });

  test("HTTP status → kind", () => {
    expect([401, 403, 429, 408, 500, 502, 404, 422].map((s) => httpError("x", s, "m").kind)).toEqual([
      "auth", "auth", "rate_limit", "timeout", "server", "server", "bad_request", "bad_request",
    ]);
    expect(httpError("x", 400, "prompt is too long: 210000 tokens > 200000 maximum").kind).toBe("context_length");
    expect(httpError("api.example.com", 429, "slow down", 5).message).toBe("api.example.com returned HTTP 429: slow down (rate limited)");
  });

  async function drain(gen: AsyncIterable<LlmChunk>): Promise<LlmChunk[]> {
    const out: LlmChunk[] = [];
    for await (const c of gen) out.push(c);
    return out;
  }

  test("retries before output, never after; non-retryable kinds fail at once", async () => {
    const retries: RetryInfo[] = [];
    let calls = 0;
    const fast = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 };
    const flaky = async function* (): AsyncGenerator<LlmChunk> {
      calls++;
      if (calls < 3) throw new ProviderError("server", "boom", 502);
      yield { type: "text", text: "ok" };
    };
    expect(await drain(withRetry(fast, new AbortController().signal, flaky, (i) => retries.push(i)))).toEqual([{ type: "text", text: "ok" }]);
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);

    calls = 0;
    const midStream = async function* (): AsyncGenerator<LlmChunk> {
      calls++;
      yield { type: "text", text: "a" };
      throw new LlmError("server", "dropped");
    };
    const err = await drain(withRetry(fast, new AbortController().signal, midStream)).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(err instanceof LlmError && err.kind).toBe("stream");

    calls = 0;
    const auth = async function* (): AsyncGenerator<LlmChunk> {
      calls++;
      throw new LlmError("auth", "nope", 401);
    };
    await expect(drain(withRetry(fast, new AbortController().signal, auth))).rejects.toMatchObject({ kind: "auth" });
    expect(calls).toBe(1);
  });
});

describe("ChatStreamAccumulator", () => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ choices: [{ delta, finish_reason: finish }] });

  test("parallel calls all sent as index 0 with distinct ids are kept apart", () => {
    const acc = new ChatStreamAccumulator(() => "gen");
    acc.push(chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "x", arguments: '{"q":' } }] }));
    acc.push(chunk({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }));
    acc.push(chunk({ tool_calls: [{ index: 0, id: "b", function: { name: "y", arguments: "" } }] }));
    acc.push(chunk({}, "function_call"));
    const done = acc.finish();
    expect(done).toMatchObject({
      finishReason: "tool_calls",
      toolCalls: [
        { id: "a", function: { name: "x", arguments: '{"q":1}' } },
        { id: "b", function: { name: "y", arguments: "{}" } },
      ],
    });
  });

  test("a chunk of the wrong shape is a stream error; a missing finish reason means cut off", () => {
    const acc = new ChatStreamAccumulator();
    expect(() => acc.push({ choices: "nope" })).toThrow(LlmError);
    const cut = new ChatStreamAccumulator();
    cut.push(chunk({ content: "half" }));
    expect(() => cut.finish()).toThrow("closed the connection");
    expect(["stop", "length", "tool_calls", "content_filter", "weird"].map(mapFinishReason)).toEqual(["stop", "length", "tool_calls", "content_filter", "other"]);
  });
});

test("createLlmClient picks the client by api mode", () => {
  for (const apiMode of ["chat_completions", "anthropic_messages"] as const) {
    const client = createLlmClient({ provider: "custom", baseUrl: "http://127.0.0.1:1/v1", apiKey: null, apiMode });
    expect(typeof client.stream).toBe("function");
  }
});

describe("mergeDeltas", () => {
  test("joins consecutive deltas of one kind and keeps everything else in order", () => {
    expect(
      mergeDeltas([
        { type: "reasoning", text: "a" },
        { type: "reasoning", text: "b" },
        { type: "text", text: "c" },
        { type: "text", text: "d" },
        { type: "reasoning", text: "e" },
      ]),
    ).toEqual([
      { type: "reasoning", text: "ab" },
      { type: "text", text: "cd" },
      { type: "reasoning", text: "e" },
    ]);
  });
});
