import type { LlmChunk, LlmClient, LlmRequest } from "./types.ts";
import { LlmError } from "./types.ts";

/** Failures where another provider may well succeed (config.yaml `fallback_providers`). */
const FALLBACK_KINDS = new Set(["auth", "rate_limit", "server", "network", "timeout"]);

export type FallbackTarget = { client: LlmClient; provider: string; model: string };

/**
 * A client that moves to the next fallback provider when a request fails before any output (after
 * the provider's own retries). The move sticks for the rest of the turn; `onSwitch` lets the session
 * follow it (its model picker and settings).
 */
export function withFallbacks(
  primary: FallbackTarget,
  fallbacks: () => Promise<FallbackTarget | undefined>,
  onSwitch: (to: FallbackTarget, error: LlmError) => Promise<void>,
): LlmClient {
  let current = primary;
  return {
    async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmChunk> {
      for (;;) {
        let yielded = false;
        try {
          for await (const chunk of current.client.stream({ ...request, model: current.model }, signal)) {
            yielded = true;
            yield chunk;
          }
          return;
        } catch (e) {
          if (yielded || signal.aborted || !(e instanceof LlmError) || !FALLBACK_KINDS.has(e.kind)) throw e;
          const next = await fallbacks();
          if (!next) throw e;
          current = next;
          await onSwitch(next, e);
        }
      }
    },
  };
}
