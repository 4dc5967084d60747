// Anthropic Messages API over SSE. `@anthropic-ai/sdk` is imported on first use.
import type {
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import { z } from "zod";
import type { ChatMessage, MessageContent, ToolCall } from "../agent/messages.ts";
import type { ProviderClientOptions } from "./openai-chat.ts";
import { endpointLabel } from "./openai-chat.ts";
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, streamAttempt, withRetry } from "./retry.ts";
import { LlmError, type FinishReason, type LlmChunk, type LlmClient, type LlmRequest, type Usage } from "./types.ts";

export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

const DATA_URL = /^data:(image\/(?:png|jpeg|gif|webp));base64,(.*)$/s;

function toImageBlock(url: string): ImageBlockParam {
  const match = DATA_URL.exec(url);
  const mediaType = match?.[1];
  if (match && (mediaType === "image/png" || mediaType === "image/jpeg" || mediaType === "image/gif" || mediaType === "image/webp")) {
    return { type: "image", source: { type: "base64", media_type: mediaType, data: match[2] ?? "" } };
  }
  return { type: "image", source: { type: "url", url } };
}

function toUserBlocks(content: MessageContent): Array<TextBlockParam | ImageBlockParam> {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return content.flatMap((part): Array<TextBlockParam | ImageBlockParam> => {
    if (part.type === "text") return part.text ? [{ type: "text", text: part.text }] : [];
    return [toImageBlock(part.image_url.url)];
  });
}

const JsonObject = z.record(z.string(), z.unknown());
/** Tool arguments are a JSON string in our history; Anthropic wants the object (invalid JSON → {}). */
function parseInput(args: string): Record<string, unknown> {
  try {
    const parsed = JsonObject.safeParse(JSON.parse(args));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

export type AnthropicConversation = { system: string | undefined; messages: MessageParam[] };

/**
 * Our OpenAI-shaped history → Anthropic: system messages → `system`, tool calls → tool_use blocks,
 * tool results → user tool_result blocks (consecutive ones share one user message), data: images → image blocks.
 */
export function toAnthropicMessages(history: ChatMessage[]): AnthropicConversation {
  const system: string[] = [];
  const messages: MessageParam[] = [];
  let toolResults: ToolResultBlockParam[] | null = null;
  for (const m of history) {
    if (m.role !== "tool") toolResults = null;
    switch (m.role) {
      case "system":
        system.push(m.content);
        break;
      case "user": {
        const blocks = toUserBlocks(m.content);
        if (blocks.length > 0) messages.push({ role: "user", content: blocks });
        break;
      }
      case "assistant": {
        const blocks: ContentBlockParam[] = [];
        if (m.content) blocks.push({ type: "text", text: m.content });
        for (const call of m.tool_calls ?? []) {
          blocks.push({ type: "tool_use", id: call.id, name: call.function.name, input: parseInput(call.function.arguments) });
        }
        // Anthropic rejects empty assistant turns.
        if (blocks.length > 0) messages.push({ role: "assistant", content: blocks });
        break;
      }
      case "tool": {
        const block: ToolResultBlockParam = { type: "tool_result", tool_use_id: m.tool_call_id, content: m.content };
        if (toolResults) toolResults.push(block);
        else {
          toolResults = [block];
          messages.push({ role: "user", content: toolResults });
        }
        break;
      }
    }
  }
  return { system: system.length > 0 ? system.join("\n\n") : undefined, messages };
}

export function toAnthropicParams(request: LlmRequest): MessageCreateParamsStreaming {
  const { system, messages } = toAnthropicMessages(request.messages);
  const params: MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: request.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    messages,
    stream: true,
  };
  if (system !== undefined) params.system = system;
  if (request.tools.length > 0) {
    params.tools = request.tools.map((t): Tool => ({ name: t.name, description: t.description, input_schema: { ...t.parameters, type: "object" } }));
  }
  return params;
}

export function mapStopReason(reason: string): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      return "other";
  }
}

const AnthropicUsage = z.object({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
});

const StreamEvent = z.object({
  type: z.string(),
  index: z.number().optional(),
  message: z.object({ usage: AnthropicUsage.nullish() }).optional(),
  content_block: z
    .object({ type: z.string(), id: z.string().optional(), name: z.string().optional(), text: z.string().optional(), thinking: z.string().optional() })
    .optional(),
  delta: z
    .object({ type: z.string().optional(), text: z.string().optional(), thinking: z.string().optional(), partial_json: z.string().optional(), stop_reason: z.string().nullish() })
    .optional(),
  usage: AnthropicUsage.nullish(),
});

type Slot = { id: string; name: string; args: string };

/** Folds Anthropic stream events into deltas and one `done`. Pure. */
export class AnthropicStreamAccumulator {
  private content = "";
  private reasoning = "";
  private readonly tools = new Map<number, Slot>();
  private stopReason: string | null = null;
  private stopped = false;
  private input = 0;
  private cacheRead = 0;
  private cacheWrite = 0;
  private output = 0;

  push(raw: unknown): LlmChunk[] {
    const parsed = StreamEvent.safeParse(raw);
    if (!parsed.success) throw new LlmError("stream", `Anthropic sent an event of unexpected shape: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    const e = parsed.data;
    const out: LlmChunk[] = [];
    if (e.message?.usage) this.takeUsage(e.message.usage);
    if (e.usage) this.takeUsage(e.usage);
    switch (e.type) {
      case "content_block_start": {
        const block = e.content_block;
        if (block?.type === "tool_use") this.tools.set(e.index ?? this.tools.size, { id: block.id ?? "", name: block.name ?? "", args: "" });
        else if (block?.type === "text" && block.text) out.push(this.text(block.text));
        else if (block?.type === "thinking" && block.thinking) out.push(this.thought(block.thinking));
        break;
      }
      case "content_block_delta": {
        const d = e.delta;
        if (d?.type === "text_delta" && d.text) out.push(this.text(d.text));
        else if (d?.type === "thinking_delta" && d.thinking) out.push(this.thought(d.thinking));
        else if (d?.type === "input_json_delta" && d.partial_json) {
          const slot = this.tools.get(e.index ?? -1);
          if (slot) slot.args += d.partial_json;
        }
        break;
      }
      case "message_delta":
        if (e.delta?.stop_reason) this.stopReason = e.delta.stop_reason;
        break;
      case "message_stop":
        this.stopped = true;
        break;
    }
    return out;
  }

  finish(): LlmChunk {
    if (!this.stopped && this.stopReason === null) {
      throw new LlmError("network", "Anthropic closed the connection before the response finished.");
    }
    const toolCalls: ToolCall[] = [...this.tools.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, s]) => ({ id: s.id || `toolu_${crypto.randomUUID().slice(0, 8)}`, type: "function", function: { name: s.name, arguments: s.args.trim() ? s.args : "{}" } }));
    // Anthropic's input_tokens excludes cached tokens; the prompt as a whole includes them.
    const prompt = this.input + this.cacheRead + this.cacheWrite;
    const usage: Usage = { promptTokens: prompt, completionTokens: this.output, totalTokens: prompt + this.output };
    if (this.cacheRead > 0) usage.cachedTokens = this.cacheRead;
    return {
      type: "done",
      content: this.content,
      reasoning: this.reasoning,
      toolCalls,
      finishReason: mapStopReason(this.stopReason ?? "end_turn"),
      usage,
    };
  }

  private text(text: string): LlmChunk {
    this.content += text;
    return { type: "text", text };
  }

  private thought(text: string): LlmChunk {
    this.reasoning += text;
    return { type: "reasoning", text };
  }

  private takeUsage(u: z.infer<typeof AnthropicUsage>): void {
    if (u.input_tokens != null) this.input = u.input_tokens;
    if (u.output_tokens != null) this.output = u.output_tokens;
    if (u.cache_read_input_tokens != null) this.cacheRead = u.cache_read_input_tokens;
    if (u.cache_creation_input_tokens != null) this.cacheWrite = u.cache_creation_input_tokens;
  }
}

export function createAnthropicClient(opts: ProviderClientOptions): LlmClient {
  // The SDK appends /v1/messages itself; Hermes configs often carry a base URL ending in /v1.
  const baseUrl = opts.baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
  const label = endpointLabel(opts.baseUrl);
  const policy = opts.retry ?? DEFAULT_RETRY_POLICY;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const load = async () => {
    const sdk = await import("@anthropic-ai/sdk");
    const key = opts.apiKey;
    // Claude subscription OAuth tokens go as a bearer token with the oauth beta flag, not as x-api-key.
    const oauth = key?.startsWith("sk-ant-oat") ?? false;
    const client = new sdk.Anthropic({
      baseURL: baseUrl,
      // An explicit credential keeps the SDK from reading env vars or profile files.
      ...(oauth ? { authToken: key } : { apiKey: key ?? "" }),
      defaultHeaders: { ...opts.headers, ...(oauth ? { "anthropic-beta": "oauth-2025-04-20" } : {}), ...(key ? {} : { Authorization: null }) },
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
      open: (s) => client.messages.create(toAnthropicParams(request), { signal: s, maxRetries: 0, timeout: timeoutMs }),
      accumulator: new AnthropicStreamAccumulator(),
    });
  }

  return {
    stream(request, signal) {
      return withRetry(policy, signal, () => attempt(request, signal), opts.onRetry);
    },
  };
}
