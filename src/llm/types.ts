import type { ChatMessage, ToolCall } from "../agent/messages.ts";

/** A tool as offered to the model (JSON schema parameters). */
export type ToolSpec = { name: string; description: string; parameters: Record<string, unknown> };

export type LlmRequest = {
  model: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  maxTokens?: number;
  reasoningEffort?: string;
};

export type Usage = {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  reasoningTokens?: number;
  cachedTokens?: number;
  /** Cost in USD of this request when the provider reports it (OpenRouter does). */
  cost?: number;
};

/** Why the model stopped, normalised across providers. */
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "other";

/** What a provider stream yields: deltas while streaming, then exactly one `done`. */
export type LlmChunk =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | {
      type: "done";
      content: string;
      reasoning: string;
      toolCalls: ToolCall[];
      finishReason: FinishReason;
      usage?: Usage;
    };

export interface LlmClient {
  /** Streams one model call. Rejects with LlmError on failure (after retries); aborts on signal. */
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmChunk>;
}

export type LlmErrorKind = "auth" | "rate_limit" | "server" | "network" | "timeout" | "context_length" | "bad_request" | "stream";

/** A provider failure, worded for the user. */
export class LlmError extends Error {
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "LlmError";
  }
}
