import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createOpenAiChatClient, requestBody, toOpenAiParams, type ProviderClientOptions } from "../../src/llm/openai-chat.ts";
import type { ChatMessage } from "../../src/agent/messages.ts";
import { mergeDeltas, type RetryInfo } from "../../src/llm/retry.ts";
import { LlmError, type LlmChunk, type LlmClient, type LlmRequest } from "../../src/llm/types.ts";
import { reply, startFakeLlm, type FakeLlmServer } from "../helpers/fake-llm-server.ts";

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlm();
});
afterAll(async () => {
  await server.stop();
});

const fastRetry = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 };
const request = (over: Partial<LlmRequest> = {}): LlmRequest => ({
  model: "fake-model",
  messages: [{ role: "user", content: "hi" }],
  tools: [],
  ...over,
});

function client(over: Partial<ProviderClientOptions> = {}): LlmClient {
  return createOpenAiChatClient({ baseUrl: server.url, apiKey: "sk-test-secret-123", retry: fastRetry, ...over });
}

async function collect(c: LlmClient, req = request(), signal = new AbortController().signal): Promise<LlmChunk[]> {
  const out: LlmChunk[] = [];
  for await (const chunk of c.stream(req, signal)) out.push(chunk);
  return out;
}

async function failure(c: LlmClient, req = request()): Promise<LlmError> {
  try {
    await collect(c, req);
  } catch (err) {
    if (err instanceof LlmError) return err;
    throw err;
  }
  throw new Error("expected the stream to fail");
}

function done(chunks: LlmChunk[]) {
  const last = chunks.at(-1);
  if (last?.type !== "done") throw new Error("no done chunk");
  return last;
}

describe("createOpenAiChatClient against the fake server", () => {
  test("streams reasoning and text, then done with usage", async () => {
    server.enqueue(reply().reasoning("hmm ").reasoning("ok", "reasoning").text("Hello ").text("world").usage({ prompt: 10, completion: 5, reasoning: 2, cached: 4, cost: 0.0012 }));
    const chunks = await collect(client());
    // Deltas of one network read may arrive merged: compare the text, not the split.
    expect(mergeDeltas(chunks.slice(0, -1))).toEqual([
      { type: "reasoning", text: "hmm ok" },
      { type: "text", text: "Hello world" },
    ]);
    expect(done(chunks)).toEqual({
      type: "done",
      content: "Hello world",
      reasoning: "hmm ok",
      toolCalls: [],
      finishReason: "stop",
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15, reasoningTokens: 2, cachedTokens: 4, cost: 0.0012 },
    });
  });

  test("sends the request shape: stream options, tools, max_tokens, effort; no _meta or reasoning", async () => {
    const before = server.requests.length;
    await collect(
      client(),
      request({
        messages: [
          { role: "system", content: "sys" },
          { role: "user", content: "q", _meta: { compactionSummary: true } },
          { role: "assistant", content: null, reasoning_content: "secret thoughts", tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: "{}" } }] },
          { role: "tool", content: "out", tool_call_id: "c1", tool_name: "read_file" },
        ],
        tools: [{ name: "read_file", description: "Read", parameters: { type: "object", properties: {} } }],
        maxTokens: 100,
        reasoningEffort: "high",
      }),
    );
    const sent = server.requests[before];
    expect(sent?.body).toMatchObject({ model: "fake-model", stream: true, stream_options: { include_usage: true }, max_tokens: 100, reasoning_effort: "high" });
    expect(sent?.tools).toEqual([{ type: "function", function: { name: "read_file", description: "Read", parameters: { type: "object", properties: {} } } }]);
    expect(sent?.messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "q" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: "{}" } }] },
      { role: "tool", content: "out", tool_call_id: "c1" },
    ]);
    expect(sent?.headers.authorization).toBe("Bearer sk-test-secret-123");
    await collect(client());
    expect(server.requests.at(-1)?.tools).toBeUndefined();
  });

  test("keyless endpoints send no Authorization header", async () => {
    await collect(client({ apiKey: null }));
    expect(server.requests.at(-1)?.headers.authorization).toBeUndefined();
  });

  test("accumulates two parallel tool calls with split arguments", async () => {
    server.enqueue(
      reply()
        .text("Let me look.")
        .toolCall({ id: "call_1", name: "read_file", args: { path: "a.txt" }, pieces: 4 })
        .toolCall({ id: "call_2", name: "search_files", args: { pattern: "foo", path: "." }, pieces: 5 }),
    );
    const d = done(await collect(client()));
    expect(d.finishReason).toBe("tool_calls");
    expect(d.content).toBe("Let me look.");
    expect(d.toolCalls).toEqual([
      { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
      { id: "call_2", type: "function", function: { name: "search_files", arguments: '{"pattern":"foo","path":"."}' } },
    ]);
  });

  test("tolerates whole calls in one chunk, missing index and missing id", async () => {
    server.enqueue(
      reply()
        .toolCall({ id: "a", name: "one", args: { x: 1 }, oneChunk: true, omitIndex: true })
        .toolCall({ id: "b", name: "two", args: {}, oneChunk: true, omitIndex: true })
        .toolCall({ id: null, name: "three", args: { y: 2 }, pieces: 2 }),
    );
    const calls = done(await collect(client())).toolCalls;
    expect(calls.map((c) => [c.function.name, c.function.arguments])).toEqual([
      ["one", '{"x":1}'],
      ["two", "{}"],
      ["three", '{"y":2}'],
    ]);
    expect(calls[0]?.id).toBe("a");
    expect(calls[2]?.id).toMatch(/^call_\w+$/);
  });

  test("finish length is reported", async () => {
    server.enqueue(reply().text("cut").finish("length"));
    expect(done(await collect(client())).finishReason).toBe("length");
  });

  test("429 then success: retried, onRetry told, Retry-After honoured", async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(reply().status(429, { retryAfter: 0 }), reply().text("ok"));
    const chunks = await collect(client({ onRetry: (info) => retries.push(info) }));
    expect(done(chunks).content).toBe("ok");
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, delayMs: 0 });
    expect(retries[0]?.reason).toContain("429");
  });

  test("500 until retries are exhausted → server LlmError with status and provider message", async () => {
    server.enqueue(reply().status(500, { message: "upstream exploded" }), reply().status(500), reply().status(503));
    const before = server.requests.length;
    const err = await failure(client());
    expect(server.requests.length - before).toBe(3);
    expect(err.kind).toBe("server");
    expect(err.status).toBe(503);
    expect(err.message).toContain("HTTP 503");
    expect(err.message).toContain("gave up after 3 attempts");
  });

  test("401 is auth, not retried, and never shows the key even when echoed", async () => {
    server.enqueue(reply().status(401, { message: "Incorrect API key provided: sk-test-secret-123" }));
    const before = server.requests.length;
    const err = await failure(client());
    expect(server.requests.length - before).toBe(1);
    expect(err.kind).toBe("auth");
    expect(err.status).toBe(401);
    expect(err.message).toContain("HTTP 401");
    expect(err.message).toContain("Incorrect API key provided");
    expect(err.message).not.toContain("sk-test-secret-123");
  });

  test("400 with a context-length message → context_length", async () => {
    server.enqueue(reply().status(400, { message: "This model's maximum context length is 8192 tokens" }));
    expect((await failure(client())).kind).toBe("context_length");
    server.enqueue(reply().status(400, { message: "bad field" }));
    expect((await failure(client())).kind).toBe("bad_request");
  });

  test("disconnect after output started → kind stream, not retried", async () => {
    server.enqueue(reply().text("a").text("b").text("c").disconnectAfter(3));
    const before = server.requests.length;
    const seen: LlmChunk[] = [];
    let caught: unknown;
    try {
      for await (const c of client().stream(request(), new AbortController().signal)) seen.push(c);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(LlmError);
    expect(caught instanceof LlmError && caught.kind).toBe("stream");
    expect(mergeDeltas(seen)).toEqual([{ type: "text", text: "ab" }]);
    expect(server.requests.length - before).toBe(1);
  });

  test("disconnect before any output is retried", async () => {
    server.enqueue(reply().text("lost").disconnectAfter(1), reply().text("fine"));
    expect(done(await collect(client())).content).toBe("fine");
  });

  test("a hang hits the idle timeout → kind timeout", async () => {
    server.enqueue(reply().text("partial").hang());
    const started = performance.now();
    const err = await failure(client({ idleTimeoutMs: 150 }));
    expect(err.kind).toBe("timeout");
    expect(err.message).toContain("no data from the model");
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test("a hang before any chunk is retried as a timeout, then succeeds", async () => {
    const retries: RetryInfo[] = [];
    server.enqueue(reply().hang(), reply().text("after hang"));
    const chunks = await collect(client({ idleTimeoutMs: 150, onRetry: (i) => retries.push(i) }));
    expect(done(chunks).content).toBe("after hang");
    expect(retries[0]?.reason).toContain("no data");
  });

  test("total timeout applies to the whole streamed response", async () => {
    server.enqueue(reply().chunks(50).delay(20));
    const err = await failure(client({ timeoutMs: 200, retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 } }));
    expect(err.kind).toBe("timeout");
    expect(err.message).toContain("did not finish within");
  });

  test("malformed SSE JSON → kind stream", async () => {
    server.enqueue(reply().text("x").malformed().text("y"));
    const err = await failure(client());
    expect(err.kind).toBe("stream");
    expect(err.message).toContain("malformed");
  });

  test("connection refused → network error naming the endpoint", async () => {
    const dead = await startFakeLlm();
    const url = dead.url;
    await dead.stop();
    const err = await failure(createOpenAiChatClient({ baseUrl: url, apiKey: "k", retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 } }));
    expect(err.kind).toBe("network");
    expect(err.message).toContain("127.0.0.1");
  });

  test("abort mid-stream stops promptly with an AbortError", async () => {
    server.enqueue(reply().text("first").hang());
    const ac = new AbortController();
    const started = performance.now();
    let abortedAt = 0;
    let caught: unknown;
    try {
      for await (const chunk of client().stream(request(), ac.signal)) {
        if (chunk.type === "text") {
          abortedAt = performance.now();
          setTimeout(() => ac.abort(), 10);
        }
      }
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Error);
    expect(caught instanceof Error && caught.name).toBe("AbortError");
    expect(caught).not.toBeInstanceOf(LlmError);
    expect(performance.now() - abortedAt).toBeLessThan(500);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test("abort during a retry delay stops at once", async () => {
    server.enqueue(reply().status(429, { retryAfter: 30 }));
    const ac = new AbortController();
    const started = performance.now();
    const pending = collect(client({ retry: { maxRetries: 3, baseDelayMs: 10, maxDelayMs: 60_000 }, onRetry: () => setTimeout(() => ac.abort(), 20) }), request(), ac.signal);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

/** A loopback server whose answer each test scripts directly (shapes the fake LLM server cannot produce). */
type Scripted = { url: string; handle: (req: Request) => Response | Promise<Response>; stop(): Promise<void> };
async function startScripted(): Promise<Scripted> {
  const pending = new Set<() => void>();
  const scripted: Scripted = {
    url: "",
    handle: () => new Response("unset", { status: 500 }),
    async stop() {
      for (const release of pending) release();
      await server.stop(true);
    },
  };
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: (req) => scripted.handle(req) });
  scripted.url = `http://127.0.0.1:${server.port}/v1`;
  return scripted;
}

const encoder = new TextEncoder();
const frame = (data: unknown) => `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
const delta = (d: Record<string, unknown>, finish: string | null = null) => frame({ choices: [{ index: 0, delta: d, finish_reason: finish }] });

/** An SSE response of the given frames; `hold` keeps the connection open afterwards until the client leaves. */
function sseResponse(frames: string[], hold = false): Response {
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = frames[i++];
      if (next !== undefined) return controller.enqueue(encoder.encode(next));
      if (!hold) return controller.close();
      await new Promise(() => {}); // never resolves: the client must stop reading on its own
    },
  });
  return new Response(stream, { headers: { "content-type": "text/event-stream" } });
}

describe("createOpenAiChatClient: stream end, error bodies, abort (scripted server)", () => {
  let scripted: Scripted;
  beforeAll(async () => {
    scripted = await startScripted();
  });
  afterAll(async () => {
    await scripted.stop();
  });
  const noRetry = { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 };
  const scriptedClient = (over: Partial<ProviderClientOptions> = {}) =>
    createOpenAiChatClient({ baseUrl: scripted.url, apiKey: "sk-test-secret-123", retry: noRetry, ...over });

  test("[DONE] without any finish_reason is a complete response (stop)", async () => {
    scripted.handle = () => sseResponse([delta({ role: "assistant", content: "" }), delta({ content: "all " }), delta({ content: "here" }), frame("[DONE]")]);
    const d = done(await collect(scriptedClient()));
    expect(d).toMatchObject({ content: "all here", finishReason: "stop", toolCalls: [] });
  });

  test("no [DONE] and no finish_reason is a cut-off: retried before output, kind stream after it", async () => {
    let calls = 0;
    scripted.handle = () => {
      calls++;
      return calls === 1 ? sseResponse([delta({ role: "assistant" })]) : sseResponse([delta({ content: "half" })]);
    };
    const err = await failure(scriptedClient({ retry: fastRetry }));
    expect(calls).toBe(2); // the first, empty cut-off was retried
    expect(err.kind).toBe("stream");
    expect(err.message).toContain("closed the connection");
  });

  test("the first token is handed on as soon as it is parsed, even from a packed read; the rest of that read merges", async () => {
    // One network write: a role event, four text deltas, [DONE].
    const packed = [delta({ role: "assistant", content: "" }), delta({ content: "a" }), delta({ content: "b" }), delta({ content: "c" }), delta({ content: "d" }), frame("[DONE]")].join("");
    scripted.handle = () => sseResponse([packed]);
    const chunks = await collect(scriptedClient());
    expect(chunks.filter((c) => c.type === "text")).toEqual([
      { type: "text", text: "a" },
      { type: "text", text: "bcd" },
    ]);
    expect(done(chunks)).toMatchObject({ content: "abcd", finishReason: "stop" });
    // CRLF framing splits the same way.
    scripted.handle = () => sseResponse([packed.replaceAll("\n", "\r\n")]);
    expect((await collect(scriptedClient())).filter((c) => c.type === "text").map((c) => (c as { text: string }).text)).toEqual(["a", "bcd"]);
  });

  test("a finish_reason without [DONE] is complete too", async () => {
    scripted.handle = () => sseResponse([delta({ content: "x" }, "length")]);
    expect(done(await collect(scriptedClient())).finishReason).toBe("length");
  });

  test("the request ends at [DONE] even when the server keeps the connection open", async () => {
    scripted.handle = () => sseResponse([delta({ content: "ok" }), frame("[DONE]"), delta({ content: "ignored" })], true);
    const started = performance.now();
    const chunks = await collect(scriptedClient({ idleTimeoutMs: 1000 }));
    expect(done(chunks).content).toBe("ok");
    expect(performance.now() - started).toBeLessThan(800);
  });

  test("sends accept, content-type and extra headers to <baseUrl>/chat/completions (trailing slash tolerated)", async () => {
    let seen: { path: string; method: string; headers: Record<string, string> } | undefined;
    scripted.handle = (req) => {
      // Copied now: Bun detaches a Request once its response is sent.
      seen = { path: new URL(req.url).pathname, method: req.method, headers: Object.fromEntries(req.headers) };
      return sseResponse([delta({ content: "x" }, "stop")]);
    };
    await collect(createOpenAiChatClient({ baseUrl: `${scripted.url}/`, apiKey: null, headers: { "X-Title": "hermes" } }));
    expect(seen).toMatchObject({ path: "/v1/chat/completions", method: "POST" });
    expect(seen?.headers).toMatchObject({ accept: "text/event-stream", "content-type": "application/json", "x-title": "hermes" });
    expect(seen?.headers.authorization).toBeUndefined();
  });

  const bodies: [string, string, string, string][] = [
    ["OpenAI JSON error.message", "application/json", JSON.stringify({ error: { message: "model gpt-x not found", type: "invalid_request_error" } }), "model gpt-x not found"],
    ["Ollama JSON error string", "application/json", JSON.stringify({ error: "model 'llama9' not found" }), "model 'llama9' not found"],
    ["top-level message", "application/json", JSON.stringify({ message: "no such route" }), "no such route"],
    ["FastAPI detail", "application/json", JSON.stringify({ detail: "Not Found" }), "Not Found"],
    ["plain text", "text/plain", "upstream said no", "upstream said no"],
  ];
  for (const [name, type, body, expected] of bodies) {
    test(`error body: ${name} → the provider's message with the status`, async () => {
      scripted.handle = () => new Response(body, { status: 404, headers: { "content-type": type } });
      const err = await failure(scriptedClient());
      expect(err.kind).toBe("bad_request");
      expect(err.status).toBe(404);
      expect(err.message).toContain(`HTTP 404: ${expected} (check the base URL`); // the message alone, not the JSON around it
    });
  }

  test("error body: empty, a long HTML page (clipped), a key in plain text (masked)", async () => {
    scripted.handle = () => new Response("", { status: 502 });
    const empty = await failure(scriptedClient());
    expect([empty.kind, empty.status]).toEqual(["server", 502]);
    expect(empty.message).toContain("HTTP 502");
    scripted.handle = () => new Response(`<html>${"x".repeat(5000)}</html>`, { status: 503, headers: { "content-type": "text/html" } });
    expect((await failure(scriptedClient())).message.length).toBeLessThan(800);
    scripted.handle = () => new Response("bad key sk-test-secret-123", { status: 403 });
    const auth = await failure(scriptedClient());
    expect(auth.kind).toBe("auth");
    expect(auth.message).toContain("bad key");
    expect(auth.message).not.toContain("sk-test-secret-123");
  });

  test("an error event inside a 200 stream → server (retryable) or context_length, key masked", async () => {
    scripted.handle = () => sseResponse([frame({ error: { message: "Provider returned error sk-test-secret-123", code: 502 } })]);
    const err = await failure(scriptedClient());
    expect(err.kind).toBe("server");
    expect(err.message).toContain("Provider returned error");
    expect(err.message).not.toContain("sk-test-secret-123");
    scripted.handle = () => sseResponse([`event: error\ndata: ${JSON.stringify({ message: "maximum context length exceeded" })}\n\n`]);
    expect((await failure(scriptedClient())).kind).toBe("context_length");
  });

  test("a chunk of the wrong shape → kind stream", async () => {
    scripted.handle = () => sseResponse([frame({ choices: [{ delta: { content: 42 } }] })]);
    const err = await failure(scriptedClient());
    expect(err.kind).toBe("stream");
    expect(err.message).toContain("content is not a string");
  });

  test("abort while waiting for the response headers → AbortError promptly, no retry", async () => {
    let calls = 0;
    scripted.handle = () => {
      calls++;
      return new Promise<Response>(() => {}); // headers never come
    };
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const started = performance.now();
    await expect(collect(scriptedClient({ retry: fastRetry }), request(), ac.signal)).rejects.toMatchObject({ name: "AbortError" });
    expect(performance.now() - started).toBeLessThan(500);
    expect(calls).toBe(1);
  });

  test("an already-aborted signal never sends a request", async () => {
    let calls = 0;
    scripted.handle = () => {
      calls++;
      return sseResponse([delta({ content: "x" }, "stop")]);
    };
    const ac = new AbortController();
    ac.abort();
    await expect(collect(scriptedClient(), request(), ac.signal)).rejects.toMatchObject({ name: "AbortError" });
    expect(calls).toBe(0);
  });

  test("headers that never come hit the idle timeout → kind timeout", async () => {
    scripted.handle = () => new Promise<Response>(() => {});
    const err = await failure(scriptedClient({ idleTimeoutMs: 100 }));
    expect(err.kind).toBe("timeout");
  });
});

describe("fake server /v1/models", () => {
  test("lists the settable models and can be made to fail", async () => {
    server.models = ["a-model", "b-model"];
    const ok = await fetch(`${server.url}/models`);
    expect(await ok.json()).toMatchObject({ data: [{ id: "a-model" }, { id: "b-model" }] });
    server.modelsFailure = 503;
    expect((await fetch(`${server.url}/models`)).status).toBe(503);
    server.modelsFailure = null;
  });
});

test("text that arrives in the same read as a malformed event still reaches the caller before the error", async () => {
  const body = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "kept text" } }] })}\n\ndata: {broken\n\n`;
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(body, { headers: { "content-type": "text/event-stream" } }) });
  try {
    const client = createOpenAiChatClient({ baseUrl: `http://127.0.0.1:${server.port}/v1`, apiKey: null, retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    const texts: string[] = [];
    let error: unknown;
    try {
      for await (const c of client.stream({ model: "m", messages: [{ role: "user", content: "x" }], tools: [] }, new AbortController().signal)) {
        if (c.type === "text") texts.push(c.text);
      }
    } catch (e) {
      error = e;
    }
    expect(texts).toEqual(["kept text"]);
    expect(String(error)).toContain("malformed");
  } finally {
    await server.stop(true);
  }
});

describe("requestBody", () => {
  const history: ChatMessage[] = [
    { role: "user", content: "read a.ts" },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }] },
    { role: "tool", content: "export const a = 1;\n\"quoted\" \\ back", tool_call_id: "c1", tool_name: "read_file" },
    { role: "assistant", content: "It exports `a`." },
    { role: "user", content: [{ type: "text", text: "and this?" }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] },
  ];
  const request = (messages: ChatMessage[]): LlmRequest => ({
    model: "m",
    messages,
    tools: [{ name: "read_file", description: "Read", parameters: { type: "object", properties: { path: { type: "string" } } } }],
    maxTokens: 100,
    reasoningEffort: "low",
  });

  test("is the JSON of the request parameters, whatever was serialised before", () => {
    const first = requestBody(request(history));
    expect(JSON.parse(first)).toEqual(JSON.parse(JSON.stringify(toOpenAiParams(request(history)))));
    // The next request of the turn: the same messages (reused) plus new ones, and one replaced by a new object.
    const next = [...history.slice(0, 3), { role: "assistant", content: "changed" } as ChatMessage, ...history.slice(4), { role: "user", content: "more" } as ChatMessage];
    expect(JSON.parse(requestBody(request(next)))).toEqual(JSON.parse(JSON.stringify(toOpenAiParams(request(next)))));
    expect(JSON.parse(requestBody({ model: "m", messages: [], tools: [] }))).toEqual({ model: "m", messages: [], stream: true, stream_options: { include_usage: true } });
  });
});
