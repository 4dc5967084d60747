// OpenAI-compatible chat completions over SSE (OpenAI, OpenRouter, DeepSeek, vLLM, Ollama, LM Studio, ...).
// The `openai` package is imported on first use: this module sits on the serve path's import graph.
import type { ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import type { ReasoningEffort } from "openai/resources/shared";
import { z } from "zod";
import type { ChatMessage, ToolCall } from "../agent/messages.ts";
import {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_RETRY_POLICY,
  DEFAULT_TIMEOUT_MS,
  streamAttempt,
  withRetry,
  type OnRetry,
  type RetryPolicy,
} from "./retry.ts";
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

const ToolCallDelta = z.object({
  index: z.number().nullish(),
  id: z.string().nullish(),
  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

const UsageChunk = z.object({
  prompt_tokens: z.number().nullish(),
  completion_tokens: z.number().nullish(),
  total_tokens: z.number().nullish(),
  completion_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(),
  cost: z.number().nullish(),
});

const ChatChunk = z.object({
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            reasoning_content: z.string().nullish(),
            reasoning: z.string().nullish(),
            tool_calls: z.array(ToolCallDelta).nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: UsageChunk.nullish(),
});

export function mapFinishReason(reason: string): FinishReason {
  if (reason === "stop" || reason === "length" || reason === "content_filter") return reason;
  if (reason === "tool_calls" || reason === "function_call") return "tool_calls";
  return "other";
}

function toUsage(u: z.infer<typeof UsageChunk>): Usage {
  const prompt = u.prompt_tokens ?? 0;
  const completion = u.completion_tokens ?? 0;
  const usage: Usage = { promptTokens: prompt, completionTokens: completion, totalTokens: u.total_tokens ?? prompt + completion };
  const reasoning = u.completion_tokens_details?.reasoning_tokens;
  const cached = u.prompt_tokens_details?.cached_tokens;
  if (reasoning != null) usage.reasoningTokens = reasoning;
  if (cached != null) usage.cachedTokens = cached;
  if (u.cost != null) usage.cost = u.cost;
  return usage;
}

type Slot = { id: string; name: string; args: string };

/** Folds chat-completion chunks into deltas and one final `done`. Pure; fed the raw (unvalidated) chunks. */
export class ChatStreamAccumulator {
  private content = "";
  private reasoning = "";
  private readonly slots: Slot[] = [];
  private readonly byIndex = new Map<number, Slot>();
  private finishReason: string | null = null;
  private usage: Usage | undefined;

  constructor(private readonly newId: () => string = () => `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`) {}

  push(raw: unknown): LlmChunk[] {
    const parsed = ChatChunk.safeParse(raw);
    if (!parsed.success) throw new LlmError("stream", `The provider sent a chunk of unexpected shape: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    const out: LlmChunk[] = [];
    if (parsed.data.usage) this.usage = toUsage(parsed.data.usage);
    for (const choice of parsed.data.choices ?? []) {
      const delta = choice.delta;
      const thought = delta?.reasoning_content || delta?.reasoning;
      if (thought) {
        this.reasoning += thought;
        out.push({ type: "reasoning", text: thought });
      }
      if (delta?.content) {
        this.content += delta.content;
        out.push({ type: "text", text: delta.content });
      }
      for (const call of delta?.tool_calls ?? []) this.pushToolCall(call);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    return out;
  }

  private pushToolCall(call: z.infer<typeof ToolCallDelta>): void {
    const id = call.id ?? "";
    let slot = call.index == null ? this.slots.at(-1) : this.byIndex.get(call.index);
    // A new id on a known index (some providers send every parallel call as index 0) or no index at all: a new call.
    if (!slot || (id && slot.id && slot.id !== id)) {
      slot = { id: "", name: "", args: "" };
      this.slots.push(slot);
    }
    if (call.index != null) this.byIndex.set(call.index, slot);
    if (id && !slot.id) slot.id = id;
    const name = call.function?.name;
    if (name && !slot.name) slot.name = name;
    slot.args += call.function?.arguments ?? "";
  }

  /** The final chunk; a stream that ended without a finish reason was cut off. */
  finish(): LlmChunk {
    if (this.finishReason === null) {
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
      finishReason: mapFinishReason(this.finishReason),
    };
    if (this.usage) chunk.usage = this.usage;
    return chunk;
  }
}

/** Our messages → OpenAI params: drops `_meta`, reasoning fields and our `tool_name`. */
export function toOpenAiMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
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
  });
}

const EFFORTS: ReadonlySet<string> = new Set(["none", "minimal", "low", "medium", "high", "xhigh", "max"]);
function isEffort(value: string): value is Exclude<ReasoningEffort, null> {
  return EFFORTS.has(value);
}

export function toOpenAiParams(request: LlmRequest): ChatCompletionCreateParamsStreaming {
  const params: ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages: toOpenAiMessages(request.messages),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) {
    params.tools = request.tools.map(
      (t): ChatCompletionTool => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }),
    );
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

export function createOpenAiChatClient(opts: ProviderClientOptions): LlmClient {
  const label = endpointLabel(opts.baseUrl);
  const policy = opts.retry ?? DEFAULT_RETRY_POLICY;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const load = async () => {
    const sdk = await import("openai");
    const client = new sdk.OpenAI({
      baseURL: opts.baseUrl,
      // Keyless local servers (Ollama, LM Studio): a placeholder satisfies the SDK, the null header drops it.
      apiKey: opts.apiKey ?? "no-key",
      defaultHeaders: { ...opts.headers, ...(opts.apiKey ? {} : { Authorization: null }) },
      maxRetries: 0,
      timeout: timeoutMs,
      logLevel: "off",
    });
    return { sdk, client };
  };
  let loaded: ReturnType<typeof load> | undefined;

  async function* attempt(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmChunk> {
    loaded ??= load();
    const { sdk, client } = await loaded;
    yield* streamAttempt({
      signal,
      timeoutMs,
      idleTimeoutMs,
      errors: { sdk, label, baseUrl: opts.baseUrl, apiKey: opts.apiKey },
      open: (s) => client.chat.completions.create(toOpenAiParams(request), { signal: s, maxRetries: 0, timeout: timeoutMs }),
      accumulator: new ChatStreamAccumulator(),
    });
  }

  return {
    stream(request, signal) {
      return withRetry(policy, signal, () => attempt(request, signal), opts.onRetry);
    },
  };
}
