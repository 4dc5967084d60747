import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AnthropicStreamAccumulator, createAnthropicClient, mapStopReason, toAnthropicMessages, toAnthropicParams } from "../../src/llm/anthropic-messages.ts";
import { LlmError, type LlmChunk, type LlmClient } from "../../src/llm/types.ts";
import { reply, startFakeLlm, type FakeLlmServer } from "../helpers/fake-llm-server.ts";

describe("toAnthropicMessages", () => {
  test("system → system, tool calls → tool_use, consecutive tool results → one user message, images → blocks", () => {
    const { system, messages } = toAnthropicMessages([
      { role: "system", content: "You are Hermes." },
      { role: "system", content: "Be brief." },
      {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,aGVsbG8=" } },
          { type: "image_url", image_url: { url: "https://example.com/a.jpg" } },
        ],
        _meta: { compactionSummary: true },
      },
      {
        role: "assistant",
        content: "Looking.",
        reasoning_content: "dropped",
        tool_calls: [
          { id: "t1", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
          { id: "t2", type: "function", function: { name: "search_files", arguments: "not json" } },
        ],
      },
      { role: "tool", content: "file body", tool_call_id: "t1", tool_name: "read_file" },
      { role: "tool", content: "no matches", tool_call_id: "t2", tool_name: "search_files" },
      { role: "assistant", content: null },
      { role: "user", content: "thanks" },
    ]);
    expect(system).toBe("You are Hermes.\n\nBe brief.");
    expect(messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "aGVsbG8=" } },
          { type: "image", source: { type: "url", url: "https://example.com/a.jpg" } },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Looking." },
          { type: "tool_use", id: "t1", name: "read_file", input: { path: "a.txt" } },
          { type: "tool_use", id: "t2", name: "search_files", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "file body" },
          { type: "tool_result", tool_use_id: "t2", content: "no matches" },
        ],
      },
      { role: "user", content: [{ type: "text", text: "thanks" }] },
    ]);
  });

  test("params: default max_tokens 8192, tools with object input_schema, no system when none", () => {
    const params = toAnthropicParams({
      model: "claude-x",
      messages: [{ role: "user", content: "hi" }],
      tools: [{ name: "todo", description: "Todos", parameters: { properties: { a: { type: "string" } } } }],
    });
    expect(params.max_tokens).toBe(8192);
    expect(params.system).toBeUndefined();
    expect(params.stream).toBe(true);
    expect(params.tools).toEqual([{ name: "todo", description: "Todos", input_schema: { type: "object", properties: { a: { type: "string" } } } }]);
    expect(toAnthropicParams({ model: "m", messages: [], tools: [], maxTokens: 100 }).max_tokens).toBe(100);
  });

  test("stop reasons", () => {
    expect([
      "end_turn", "stop_sequence", "max_tokens", "tool_use", "refusal", "pause_turn", "model_context_window_exceeded",
    ].map(mapStopReason)).toEqual(["stop", "stop", "length", "tool_calls", "content_filter", "other", "length"]);
  });

  test("accumulator: a stream without message_stop or stop_reason was cut off", () => {
    const acc = new AnthropicStreamAccumulator();
    acc.push({ type: "message_start", message: { usage: { input_tokens: 3 } } });
    acc.push({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" } });
    expect(() => acc.finish()).toThrow(LlmError);
  });
});

describe("createAnthropicClient against the fake server", () => {
  let server: FakeLlmServer;
  beforeAll(async () => {
    server = await startFakeLlm();
  });
  afterAll(async () => {
    await server.stop();
  });
  const client = (): LlmClient =>
    createAnthropicClient({ baseUrl: server.url, apiKey: "sk-ant-test-key-999", retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 5 } });
  const collect = async (c: LlmClient): Promise<LlmChunk[]> => {
    const out: LlmChunk[] = [];
    for await (const chunk of c.stream({ model: "claude-x", messages: [{ role: "system", content: "S" }, { role: "user", content: "hi" }], tools: [] }, new AbortController().signal)) out.push(chunk);
    return out;
  };

  test("streams thinking, text and a tool call; maps stop reason and usage", async () => {
    server.enqueue(
      reply().reasoning("think ").reasoning("more").text("Hi ").text("there").toolCall({ id: "toolu_1", name: "read_file", args: { path: "a.txt" }, pieces: 3 }).usage({ prompt: 20, completion: 7, cached: 5 }),
    );
    const chunks = await collect(client());
    expect(chunks.slice(0, -1)).toEqual([
      { type: "reasoning", text: "think " },
      { type: "reasoning", text: "more" },
      { type: "text", text: "Hi " },
      { type: "text", text: "there" },
    ]);
    expect(chunks.at(-1)).toEqual({
      type: "done",
      content: "Hi there",
      reasoning: "think more",
      toolCalls: [{ id: "toolu_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } }],
      finishReason: "tool_calls",
      usage: { promptTokens: 25, completionTokens: 7, totalTokens: 32, cachedTokens: 5 },
    });
    const sent = server.requests.at(-1);
    expect(sent?.path).toBe("/v1/messages");
    // SDK 1.14 sends the key as a bearer token; older ones used x-api-key.
    expect([sent?.headers["x-api-key"], sent?.headers.authorization]).toContainEqual(expect.stringContaining("sk-ant-test-key-999"));
    expect(sent?.body).toMatchObject({ model: "claude-x", system: "S", max_tokens: 8192, stream: true });
  });

  test("max_tokens → length", async () => {
    server.enqueue(reply().text("cut").finish("length"));
    expect((await collect(client())).at(-1)).toMatchObject({ type: "done", finishReason: "length" });
  });

  test("529 overloaded is retried; 401 is auth without the key", async () => {
    server.enqueue(reply().status(529), reply().text("ok"));
    expect((await collect(client())).at(-1)).toMatchObject({ content: "ok" });
    server.enqueue(reply().status(401, { message: "invalid x-api-key sk-ant-test-key-999" }));
    const err = await collect(client()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LlmError);
    expect(err instanceof LlmError && err.kind).toBe("auth");
    expect(err instanceof LlmError && err.message).not.toContain("sk-ant-test-key-999");
  });
});
