// Our single retry/timeout policy for provider calls (the SDKs' own retries are disabled).
import { z } from "zod";
import { redact as redactSecrets } from "../util/redact.ts";
import { LlmError, type LlmChunk, type LlmErrorKind } from "./types.ts";
import { firstEventEnd } from "./sse-stream.ts";

export type RetryPolicy = { maxRetries: number; baseDelayMs: number; maxDelayMs: number };

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 1000, maxDelayMs: 30_000 };
export const DEFAULT_TIMEOUT_MS = 600_000;
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

export type RetryInfo = { attempt: number; delayMs: number; reason: string };
export type OnRetry = (info: RetryInfo) => void;

/** An LlmError that remembers the provider's Retry-After hint. */
export class ProviderError extends LlmError {
  constructor(
    kind: LlmErrorKind,
    message: string,
    status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(kind, message, status);
  }
}

const RETRYABLE: ReadonlySet<LlmErrorKind> = new Set(["rate_limit", "server", "network", "timeout"]);

export function isRetryable(err: unknown): err is LlmError {
  return err instanceof LlmError && RETRYABLE.has(err.kind);
}

/** Retry-After (seconds or HTTP date) or retry-after-ms, in milliseconds. */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.get("retry-after-ms") !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get("retry-after");
  if (raw === null || raw.trim() === "") return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with full jitter in [50%, 100%]; a provider hint wins, capped at maxDelayMs. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, retryAfterMs?: number, random = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxDelayMs);
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exp * (0.5 + random() / 2));
}

export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  return new DOMException("The operation was aborted.", "AbortError");
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, retrying retryable failures only while nothing was yielded:
 * after output started a retry would duplicate text, so the failure surfaces (as kind "stream").
 */
export async function* withRetry(
  policy: RetryPolicy,
  signal: AbortSignal,
  attempt: () => AsyncIterable<LlmChunk>,
  onRetry?: OnRetry,
): AsyncGenerator<LlmChunk> {
  for (let n = 1; ; n++) {
    let yielded = false;
    try {
      for await (const chunk of attempt()) {
        yielded = true;
        yield chunk;
      }
      return;
    } catch (err) {
      if (signal.aborted) throw abortError(signal);
      if (!(err instanceof LlmError)) throw err;
      if (yielded) {
        if (err.kind === "timeout" || err.kind === "stream") throw err;
        throw new LlmError("stream", `${err.message} (the response was cut off after it started)`, err.status);
      }
      if (!isRetryable(err) || n > policy.maxRetries) {
        if (n > 1 && isRetryable(err)) throw new LlmError(err.kind, `${err.message} (gave up after ${n} attempts)`, err.status);
        throw err;
      }
      const delayMs = retryDelayMs(policy, n, err instanceof ProviderError ? err.retryAfterMs : undefined);
      onRetry?.({ attempt: n, delayMs, reason: err.message });
      await sleep(delayMs, signal);
    }
  }
}

/**
 * One attempt's abort scope: follows the caller's signal and adds a total and an idle-chunk timeout.
 * `touch()` on every received chunk; `timedOut` says which deadline fired.
 */
export class AttemptGuard {
  readonly controller = new AbortController();
  timedOut: "total" | "idle" | null = null;
  private readonly totalTimer: ReturnType<typeof setTimeout>;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly onAbort = () => this.controller.abort(this.outer.reason);

  constructor(
    private readonly outer: AbortSignal,
    readonly timeoutMs: number,
    readonly idleTimeoutMs: number,
  ) {
    if (outer.aborted) this.controller.abort(outer.reason);
    else outer.addEventListener("abort", this.onAbort, { once: true });
    this.totalTimer = setTimeout(() => this.fire("total"), timeoutMs);
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  touch(): void {
    if (this.timedOut) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.fire("idle"), this.idleTimeoutMs);
  }

  /** The error to throw for a fired timeout, or null. */
  timeoutError(provider: string): LlmError | null {
    if (this.timedOut === "idle") {
      return new LlmError("timeout", `${provider}: no data from the model for ${formatSeconds(this.idleTimeoutMs)}; the request timed out.`);
    }
    if (this.timedOut === "total") {
      return new LlmError("timeout", `${provider}: the request did not finish within ${formatSeconds(this.timeoutMs)}.`);
    }
    return null;
  }

  dispose(): void {
    clearTimeout(this.totalTimer);
    clearTimeout(this.idleTimer);
    this.outer.removeEventListener("abort", this.onAbort);
  }

  private fire(which: "total" | "idle"): void {
    if (this.timedOut || this.controller.signal.aborted) return;
    this.timedOut = which;
    clearTimeout(this.totalTimer);
    clearTimeout(this.idleTimer);
    this.controller.abort(new DOMException(`${which} timeout`, "TimeoutError"));
  }
}

function formatSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

const CONTEXT_LENGTH = /context[ _-]?(length|window)|maximum context|prompt is too long|too many tokens|token limit|reduce the length|input is too long|exceeds? the (model'?s? )?(max|context)/i;

/** Maps an HTTP failure to an LlmError worded for the user; `label` names the provider endpoint. */
export function httpError(label: string, status: number, providerMessage: string, retryAfterMs?: number): ProviderError {
  const detail = providerMessage.trim() ? `: ${providerMessage.trim()}` : "";
  const text = `${label} returned HTTP ${status}${detail}`;
  if (status === 401 || status === 403) return new ProviderError("auth", `${text} (check the API key and its permissions)`, status);
  if (status === 429) return new ProviderError("rate_limit", `${text} (rate limited)`, status, retryAfterMs);
  if (status === 408) return new ProviderError("timeout", text, status, retryAfterMs);
  if (status >= 500) return new ProviderError("server", text, status, retryAfterMs);
  if (CONTEXT_LENGTH.test(providerMessage)) return new ProviderError("context_length", `${text} (the conversation is too long for this model)`, status);
  if (status === 404) return new ProviderError("bad_request", `${text} (check the base URL and the model name)`, status);
  return new ProviderError("bad_request", text, status);
}

export function isContextLengthMessage(message: string): boolean {
  return CONTEXT_LENGTH.test(message);
}

/** A transport error's message without Bun's "pass `verbose: true`" advice, which users cannot act on. */
export function describeCause(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/\s*For more information, pass `verbose: true`.*$/s, "");
}

/** Never let a key reach a message, even when a provider echoes it back (also masks other key shapes). */
export function redact(message: string, apiKey: string | null): string {
  return redactSecrets(message, apiKey ? [apiKey] : []);
}

type ErrorClass<T> = abstract new (...args: never[]) => T;
/** The error classes both Stainless-generated SDKs (openai, @anthropic-ai/sdk) export. */
export type SdkErrorClasses = {
  APIError: ErrorClass<Error & { status: number | undefined; headers: { get(name: string): string | null } | undefined; error: unknown }>;
  APIConnectionError: ErrorClass<Error>;
  APIConnectionTimeoutError: ErrorClass<Error>;
  APIUserAbortError: ErrorClass<Error>;
};

const ErrorBody = z.union([z.object({ message: z.string() }), z.object({ error: z.object({ message: z.string() }) }), z.string()]);
function providerMessage(body: unknown, fallback: string): string {
  const parsed = ErrorBody.safeParse(body);
  if (!parsed.success) return fallback;
  if (typeof parsed.data === "string") return parsed.data;
  return "message" in parsed.data ? parsed.data.message : parsed.data.error.message;
}

export type ErrorContext = { sdk: SdkErrorClasses; label: string; baseUrl: string; apiKey: string | null };

/** Any failure of one attempt → AbortError (caller cancelled), or an LlmError worded for the user. */
export function toLlmError(err: unknown, ctx: ErrorContext, guard: AttemptGuard, signal: AbortSignal, midStream: boolean): Error {
  const { sdk, label } = ctx;
  if (signal.aborted) return abortError(signal);
  const timeout = guard.timeoutError(label);
  if (timeout) return timeout;
  if (err instanceof LlmError) return err;
  if (err instanceof sdk.APIConnectionTimeoutError) return new LlmError("timeout", `${label}: the request timed out.`);
  if (err instanceof sdk.APIUserAbortError) return new LlmError("network", `${label}: the request was aborted.`);
  if (err instanceof sdk.APIConnectionError) return transportError(err.cause instanceof Error ? err.cause : err, ctx, midStream);
  if (err instanceof sdk.APIError) {
    const message = redact(providerMessage(err.error, err.message), ctx.apiKey);
    if (typeof err.status === "number") return httpError(label, err.status, message, parseRetryAfter(err.headers));
    // An error event inside an otherwise healthy stream (OpenRouter, Anthropic "overloaded_error").
    if (isContextLengthMessage(message)) return new LlmError("context_length", `${label} reported: ${message}`);
    return new LlmError("server", `${label} reported an error in the stream: ${message}`);
  }
  if (err instanceof SyntaxError) return new LlmError("stream", `${label} sent a malformed event stream (${err.message}).`);
  return transportError(err, ctx, midStream);
}

function transportError(cause: unknown, ctx: ErrorContext, midStream: boolean): LlmError {
  const detail = redact(describeCause(cause), ctx.apiKey);
  return midStream
    ? new LlmError("network", `The connection to ${ctx.label} was lost mid-response: ${detail}`)
    : new LlmError("network", `Could not reach ${ctx.label} (${ctx.baseUrl}): ${detail}`);
}

/** Folds one provider's raw stream events into LlmChunks. */
export type StreamAccumulator = { push(raw: unknown): LlmChunk[]; finish(): LlmChunk };

export type AttemptOptions = {
  signal: AbortSignal;
  timeoutMs: number;
  idleTimeoutMs: number;
  errors: ErrorContext;
  open: (signal: AbortSignal) => Promise<AsyncIterable<unknown>>;
  accumulator: StreamAccumulator;
};

/**
 * Joins consecutive text (or reasoning) deltas that arrived in one network read: a fast server packs
 * hundreds of events into a read, and every chunk costs a trip through each layer up to the client.
 */
export function mergeDeltas(chunks: LlmChunk[]): LlmChunk[] {
  if (chunks.length < 2) return chunks;
  const out: LlmChunk[] = [];
  for (const chunk of chunks) {
    const last = out[out.length - 1];
    if (last && (chunk.type === "text" || chunk.type === "reasoning") && last.type === chunk.type) {
      out[out.length - 1] = { type: chunk.type, text: last.text + chunk.text };
    } else out.push(chunk);
  }
  return out;
}

/** One HTTP attempt: open the stream under an AttemptGuard, feed the accumulator, map every failure. */
export async function* streamAttempt(o: AttemptOptions): AsyncGenerator<LlmChunk> {
  if (o.signal.aborted) throw abortError(o.signal);
  const guard = new AttemptGuard(o.signal, o.timeoutMs, o.idleTimeoutMs);
  try {
    let stream: AsyncIterable<unknown>;
    try {
      stream = await o.open(guard.signal);
    } catch (err) {
      throw toLlmError(err, o.errors, guard, o.signal, false);
    }
    const iterator = stream[Symbol.asyncIterator]();
    // Until the first chunk is out, a read of SSE bytes is fed one event at a time: the first token leaves as
    // soon as it is parsed, not after the rest of a packed read (a fast server puts hundreds of events in one).
    let nothingYet = true;
    while (true) {
      let next: IteratorResult<unknown>;
      try {
        next = await iterator.next();
      } catch (err) {
        throw toLlmError(err, o.errors, guard, o.signal, true);
      }
      if (next.done) break;
      guard.touch();
      let rest = next.value;
      while (nothingYet && rest instanceof Uint8Array) {
        const end = firstEventEnd(rest);
        if (end < 0 || end === rest.length) break;
        for (const chunk of mergeDeltas(o.accumulator.push(rest.subarray(0, end)))) {
          nothingYet = false;
          yield chunk;
        }
        rest = rest.subarray(end);
      }
      for (const chunk of mergeDeltas(o.accumulator.push(rest))) {
        nothingYet = false;
        yield chunk;
      }
    }
    // The SDKs end quietly when their signal aborts: tell cancellation and timeouts from a real end.
    if (o.signal.aborted) throw abortError(o.signal);
    const timeout = guard.timeoutError(o.errors.label);
    if (timeout) throw timeout;
    yield o.accumulator.finish();
  } finally {
    guard.dispose();
    // Stops the HTTP request when the consumer leaves early; a no-op after a complete response.
    guard.controller.abort();
  }
}
