// OpenAI-compatible chat completions over SSE (OpenAI, OpenRouter, DeepSeek, vLLM, Ollama, LM Studio, ...).
// Plain fetch + eventsource-parser: the SDK's stream parser cost ~3× a bare reader on long streams.
// The per-delta path is one JSON.parse and a few typeof checks (no zod: thousands of deltas per turn).
import type { ChatMessage, ContentPart, ToolCall } from "../agent/messages.ts";
import {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_RETRY_POLICY,
  DEFAULT_TIMEOUT_MS,
  httpError,
  isContextLengthMessage,
  parseRetryAfter,
  redact,
  streamAttempt,
  withRetry,
  type ErrorContext,
  type OnRetry,
  type RetryPolicy,
  type SdkErrorClasses,
  type StreamAccumulator,
} from "./retry.ts";
import { errorBodyMessage, isRecord, readUntil, SseDecoder } from "./sse-stream.ts";
import { LlmError, type FinishReason, type LlmChunk, type LlmClient, type LlmRequest, type Usage } from "./types.ts";

export type ProviderClientOptions = {
  baseUrl: string;
  apiKey: string | null;
  timeoutMs?: number;
  idleTimeoutMs?: number;
  retry?: RetryPolicy;
  onRetry?: OnRetry;
  headers?: Record<string, string>;
};

export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

/** The chat-completions request messages we send (the subset of OpenAI's shapes we produce). */
export type OpenAiMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; content: string; tool_call_id: string };

export type OpenAiTool = { type: "function"; function: { name: string; description: string; parameters: Record<string, unknown> } };

export type OpenAiChatParams = {
  model: string;
  messages: OpenAiMessage[];
  stream: true;
  stream_options: { include_usage: true };
  tools?: OpenAiTool[];
  max_tokens?: number;
  reasoning_effort?: ReasoningEffort;
};

export function mapFinishReason(reason: string): FinishReason {
  if (reason === "stop" || reason === "length" || reason === "content_filter") return reason;
  if (reason === "tool_calls" || reason === "function_call") return "tool_calls";
  return "other";
}

function shapeError(what: string): LlmError {
  return new LlmError("stream", `The provider sent a chunk of unexpected shape: ${what}`);
}
function optString(value: unknown, field: string): string | undefined {
  if (value == null) return undefined;
  if (typeof value !== "string") throw shapeError(`${field} is not a string`);
  return value;
}
function optNumber(value: unknown, field: string): number | undefined {
  if (value == null) return undefined;
  if (typeof value !== "number") throw shapeError(`${field} is not a number`);
  return value;
}
function optRecord(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value == null) return undefined;
  if (!isRecord(value)) throw shapeError(`${field} is not an object`);
  return value;
}

function toUsage(u: Record<string, unknown>): Usage {
  const prompt = optNumber(u.prompt_tokens, "usage.prompt_tokens") ?? 0;
  const completion = optNumber(u.completion_tokens, "usage.completion_tokens") ?? 0;
  const total = optNumber(u.total_tokens, "usage.total_tokens") ?? prompt + completion;
  const usage: Usage = { promptTokens: prompt, completionTokens: completion, totalTokens: total };
  const reasoning = optNumber(optRecord(u.completion_tokens_details, "usage.completion_tokens_details")?.reasoning_tokens, "reasoning_tokens");
  const cached = optNumber(optRecord(u.prompt_tokens_details, "usage.prompt_tokens_details")?.cached_tokens, "cached_tokens");
  const cost = optNumber(u.cost, "usage.cost");
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  if (cached !== undefined) usage.cachedTokens = cached;
  if (cost !== undefined) usage.cost = cost;
  return usage;
}

type Slot = { id: string; name: string; args: string };

/**
 * Adds a delta to the chunks of this read, extending the last one when it is of the same kind: a fast model
 * sends thousands of one-token deltas, and one object per delta was a measurable share of a stream's cost.
 */
function appendDelta(out: LlmChunk[], type: "text" | "reasoning", text: string): void {
  const last = out[out.length - 1];
  if (last?.type === type) last.text += text;
  else out.push({ type, text });
}

/** Folds chat-completion chunks into deltas and one final `done`. Pure; fed the raw (unvalidated) chunks. */
export class ChatStreamAccumulator {
  private content = "";
  private reasoning = "";
  private readonly slots: Slot[] = [];
  private readonly byIndex = new Map<number, Slot>();
  private finishReason: string | null = null;
  private usage: Usage | undefined;
  private ended = false;

  constructor(private readonly newId: () => string = () => `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`) {}

  push(raw: unknown): LlmChunk[] {
    const out: LlmChunk[] = [];
    this.pushInto(raw, out);
    return out;
  }

  /** `push` appending to the caller's array (one array per network read instead of one per chunk). */
  pushInto(raw: unknown, out: LlmChunk[]): void {
    if (!isRecord(raw)) throw shapeError("not an object");
    const usage = optRecord(raw.usage, "usage");
    if (usage) this.usage = toUsage(usage);
    const choices = raw.choices;
    if (choices == null) return;
    if (!Array.isArray(choices)) throw shapeError("choices is not a list");
    for (const choice of choices) this.pushChoice(choice, out);
  }

  /** The provider sent `[DONE]`: the response is complete even if no choice carried a finish reason. */
  markDone(): void {
    this.ended = true;
  }

  private pushChoice(choice: unknown, out: LlmChunk[]): void {
    if (!isRecord(choice)) throw shapeError("a choice is not an object");
    const delta = optRecord(choice.delta, "delta");
    if (delta) {
      const thought = optString(delta.reasoning_content, "reasoning_content") || optString(delta.reasoning, "reasoning");
      if (thought) {
        this.reasoning += thought;
        appendDelta(out, "reasoning", thought);
      }
      const content = optString(delta.content, "content");
      if (content) {
        this.content += content;
        appendDelta(out, "text", content);
      }
      const calls = delta.tool_calls;
      if (calls != null) {
        if (!Array.isArray(calls)) throw shapeError("tool_calls is not a list");
        for (const call of calls) this.pushToolCall(call);
      }
    }
    const finish = optString(choice.finish_reason, "finish_reason");
    if (finish) this.finishReason = finish;
  }

  private pushToolCall(call: unknown): void {
    if (!isRecord(call)) throw shapeError("a tool call is not an object");
    const index = optNumber(call.index, "tool_calls.index");
    const id = optString(call.id, "tool_calls.id") ?? "";
    const fn = optRecord(call.function, "tool_calls.function");
    const name = optString(fn?.name, "function.name");
    const args = optString(fn?.arguments, "function.arguments");
    let slot = index === undefined ? this.slots.at(-1) : this.byIndex.get(index);
    // A new id on a known index (some providers send every parallel call as index 0) or no index at all: a new call.
    if (!slot || (id && slot.id && slot.id !== id)) {
      slot = { id: "", name: "", args: "" };
      this.slots.push(slot);
    }
    if (index !== undefined) this.byIndex.set(index, slot);
    if (id && !slot.id) slot.id = id;
    if (name && !slot.name) slot.name = name;
    if (args) slot.args += args;
  }

  /** The final chunk; a stream that ended with neither a finish reason nor `[DONE]` was cut off. */
  finish(): LlmChunk {
    if (this.finishReason === null && !this.ended) {
      throw new LlmError("network", "The provider closed the connection before the response finished.");
    }
    const toolCalls: ToolCall[] = this.slots
      .filter((s) => s.name)
      .map((s) => ({ id: s.id || this.newId(), type: "function", function: { name: s.name, arguments: s.args.trim() ? s.args : "{}" } }));
    const chunk: LlmChunk = {
      type: "done",
      content: this.content,
      reasoning: this.reasoning,
      toolCalls,
      finishReason: mapFinishReason(this.finishReason ?? "stop"),
    };
    if (this.usage) chunk.usage = this.usage;
    return chunk;
  }
}

/** Network reads → SSE events → chunk JSON → ChatStreamAccumulator; `[DONE]` ends the response. */
class ChatSseAccumulator implements StreamAccumulator {
  private readonly chat = new ChatStreamAccumulator();
  private readonly sse = new SseDecoder();
  ended = false;
  private deferred: unknown;

  constructor(private readonly errors: ErrorContext) {}

  push(raw: unknown): LlmChunk[] {
    if (this.deferred) throw this.deferred;
    if (!(raw instanceof Uint8Array)) throw new LlmError("stream", `${this.errors.label} sent a body that is not bytes.`);
    const out: LlmChunk[] = [];
    try {
      for (const event of this.sse.feed(raw)) {
        const data = event.data;
        if (data === "[DONE]") {
          this.ended = true;
          this.chat.markDone();
          break;
        }
        if (data === "") continue;
        let json: unknown;
        try {
          json = JSON.parse(data);
        } catch (err) {
          const why = err instanceof Error ? err.message : "invalid JSON";
          throw new LlmError("stream", `${this.errors.label} sent a malformed event stream (${why}).`);
        }
        if (event.event === "error" || (isRecord(json) && json.error)) throw this.streamError(json);
        this.chat.pushInto(json, out);
      }
    } catch (e) {
      // Text that arrived in the same read before the bad event still reaches the user; the error follows.
      if (out.length === 0) throw e;
      this.deferred = e;
    }
    return out;
  }

  finish(): LlmChunk {
    if (this.deferred) throw this.deferred;
    return this.chat.finish();
  }

  /** An error event inside an otherwise healthy stream (OpenRouter sends upstream failures this way). */
  private streamError(json: unknown): LlmError {
    const error = isRecord(json) && json.error ? json.error : json;
    const text = isRecord(error) && typeof error.message === "string" ? error.message : typeof error === "string" ? error : JSON.stringify(error);
    const message = redact(text, this.errors.apiKey);
    const { label } = this.errors;
    if (isContextLengthMessage(message)) return new LlmError("context_length", `${label} reported: ${message}`);
    return new LlmError("server", `${label} reported an error in the stream: ${message}`);
  }
}

/** Our messages → OpenAI params: drops `_meta`, reasoning fields and our `tool_name`. */
function toOpenAiMessage(m: ChatMessage): OpenAiMessage {
  switch (m.role) {
    case "system":
      return { role: "system", content: m.content };
    case "user":
      return { role: "user", content: m.content };
    case "assistant":
      return m.tool_calls && m.tool_calls.length > 0
        ? { role: "assistant", content: m.content, tool_calls: m.tool_calls }
        : { role: "assistant", content: m.content ?? "" };
    case "tool":
      return { role: "tool", content: m.content, tool_call_id: m.tool_call_id };
  }
}

/**
 * The JSON of each message, kept while the message lives. The whole history goes out with every request, and
 * serialising it again was most of the time before a request left (0.7 ms for a 170 KB history, each model
 * call of each turn). Sound because messages are never changed once made (compression makes new ones).
 */
const messageJson = new WeakMap<ChatMessage, string>();

function serializedMessage(m: ChatMessage): string {
  let json = messageJson.get(m);
  if (json === undefined) {
    json = JSON.stringify(toOpenAiMessage(m));
    messageJson.set(m, json);
  }
  return json;
}

const EFFORTS: ReadonlySet<string> = new Set<ReasoningEffort>(["none", "minimal", "low", "medium", "high", "xhigh", "max"]);
function isEffort(value: string): value is ReasoningEffort {
  return EFFORTS.has(value);
}

/** The request body: `toOpenAiParams` as JSON, with each message's JSON reused from earlier requests. */
export function requestBody(request: LlmRequest): string {
  const { messages: _, ...params } = toOpenAiParams({ ...request, messages: [] });
  const head = JSON.stringify(params);
  return `${head.slice(0, -1)},"messages":[${request.messages.map(serializedMessage).join(",")}]}`;
}

export function toOpenAiParams(request: LlmRequest): OpenAiChatParams {
  const params: OpenAiChatParams = {
    model: request.model,
    messages: request.messages.map(toOpenAiMessage),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) {
    params.tools = request.tools.map((t): OpenAiTool => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }));
  }
  if (request.maxTokens !== undefined) params.max_tokens = request.maxTokens;
  if (request.reasoningEffort !== undefined && isEffort(request.reasoningEffort)) params.reasoning_effort = request.reasoningEffort;
  return params;
}

export function endpointLabel(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return "the provider";
  }
}

// streamAttempt maps the Stainless SDKs' error classes; fetch throws none of them, so none can match.
class NotAnSdkError extends Error {
  status: number | undefined = undefined;
  headers: { get(name: string): string | null } | undefined = undefined;
  error: unknown = undefined;
}
const NO_SDK: SdkErrorClasses = { APIError: NotAnSdkError, APIConnectionError: NotAnSdkError, APIConnectionTimeoutError: NotAnSdkError, APIUserAbortError: NotAnSdkError };

/** A non-2xx answer → LlmError with the status and the provider's own message (never the key). */
async function responseError(res: Response, errors: ErrorContext, signal: AbortSignal): Promise<LlmError> {
  let body = "";
  try {
    body = await res.text();
  } catch (err) {
    if (signal.aborted) throw err; // cancellation or a timeout: streamAttempt words it
  }
  return httpError(errors.label, res.status, redact(errorBodyMessage(body), errors.apiKey), parseRetryAfter(res.headers));
}

export function createOpenAiChatClient(opts: ProviderClientOptions): LlmClient {
  const policy = opts.retry ?? DEFAULT_RETRY_POLICY;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const errors: ErrorContext = { sdk: NO_SDK, label: endpointLabel(opts.baseUrl), baseUrl: opts.baseUrl, apiKey: opts.apiKey };
  const url = `${opts.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const headers = new Headers({ "content-type": "application/json", accept: "text/event-stream" });
  if (opts.apiKey) headers.set("authorization", `Bearer ${opts.apiKey}`);
  for (const [name, value] of Object.entries(opts.headers ?? {})) headers.set(name, value);

  function attempt(body: string, signal: AbortSignal): AsyncGenerator<LlmChunk> {
    const accumulator = new ChatSseAccumulator(errors);
    return streamAttempt({
      signal,
      timeoutMs,
      idleTimeoutMs,
      errors,
      accumulator,
      open: async (s) => {
        const res = await fetch(url, { method: "POST", headers, body, signal: s });
        if (!res.ok) throw await responseError(res, errors, s);
        if (!res.body) throw new LlmError("stream", `${errors.label} answered without a body.`);
        return readUntil(res.body, () => accumulator.ended);
      },
    });
  }

  return {
    stream(request, signal) {
      let body: string | undefined; // serialised once for all attempts, lazily so a failure rejects the iteration
      return withRetry(policy, signal, () => attempt((body ??= requestBody(request)), signal), opts.onRetry);
    },
  };
}
