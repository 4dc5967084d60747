// Picks the wire client for a resolved runtime. Cheap to import: the SDKs load on the first request.
import { assertNever } from "../util/assert-never.ts";
import { createAnthropicClient } from "./anthropic-messages.ts";
import { createOpenAiChatClient, type ProviderClientOptions } from "./openai-chat.ts";
import type { OnRetry, RetryPolicy } from "./retry.ts";
import type { LlmClient } from "./types.ts";

export type ClientRuntime = {
  provider: string;
  baseUrl: string;
  apiKey: string | null;
  apiMode: "chat_completions" | "anthropic_messages";
};

export type ClientOptions = { retry?: RetryPolicy; timeoutMs?: number; idleTimeoutMs?: number; onRetry?: OnRetry };

export function createLlmClient(runtime: ClientRuntime, opts: ClientOptions = {}): LlmClient {
  const options: ProviderClientOptions = { baseUrl: runtime.baseUrl, apiKey: runtime.apiKey, ...opts };
  switch (runtime.apiMode) {
    case "chat_completions":
      return createOpenAiChatClient(options);
    case "anthropic_messages":
      return createAnthropicClient(options);
    default:
      return assertNever(runtime.apiMode);
  }
}
