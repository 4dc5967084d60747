// Record every model call's chunks to a JSON file (HERMES_ACP_LLM_RECORD=<path>) or serve them back in order
// without a server (HERMES_ACP_LLM_REPLAY=<path>), so transcript tests can contain whole turns.
import { readFileSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { abortError } from "./retry.ts";
import { LlmError, type LlmChunk, type LlmClient, type LlmRequest } from "./types.ts";

const ToolCallSchema = z.object({ id: z.string(), type: z.literal("function"), function: z.object({ name: z.string(), arguments: z.string() }) });
const UsageSchema = z.object({
  promptTokens: z.number(),
  completionTokens: z.number(),
  totalTokens: z.number(),
  reasoningTokens: z.number().optional(),
  cachedTokens: z.number().optional(),
  cost: z.number().optional(),
});
const ChunkSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("reasoning"), text: z.string() }),
  z.object({
    type: z.literal("done"),
    content: z.string(),
    reasoning: z.string(),
    toolCalls: z.array(ToolCallSchema),
    finishReason: z.enum(["stop", "length", "tool_calls", "content_filter", "other"]),
    usage: UsageSchema.optional(),
  }),
]);
const ErrorKind = z.enum(["auth", "rate_limit", "server", "network", "timeout", "context_length", "bad_request", "stream"]);
const CallSchema = z.object({
  /** What was asked, for humans reading the fixture; replay does not compare it. */
  request: z.object({ model: z.string(), messages: z.array(z.unknown()), tools: z.array(z.string()) }),
  chunks: z.array(ChunkSchema),
  error: z.object({ kind: ErrorKind, message: z.string(), status: z.number().optional() }).optional(),
  /** The caller cancelled: replay yields the chunks, then waits for the caller's signal. */
  aborted: z.boolean().optional(),
});
const FileSchema = z.object({ version: z.literal(1), calls: z.array(CallSchema) });

export type RecordedCall = z.infer<typeof CallSchema>;
export type Recording = z.infer<typeof FileSchema>;

// Per path, process-wide: several wrapped clients (one per provider endpoint) share one recording and one cursor.
const recorders = new Map<string, RecordedCall[]>();
const cursors = new Map<string, { calls: RecordedCall[]; next: number }>();

function describe(request: LlmRequest): RecordedCall["request"] {
  return { model: request.model, messages: request.messages, tools: request.tools.map((t) => t.name) };
}

function recordingClient(inner: LlmClient, path: string): LlmClient {
  const calls = recorders.get(path) ?? [];
  recorders.set(path, calls);
  const save = (call: RecordedCall) => {
    calls.push(call);
    const file: Recording = { version: 1, calls };
    writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`);
  };
  return {
    async *stream(request, signal) {
      const chunks: LlmChunk[] = [];
      try {
        for await (const chunk of inner.stream(request, signal)) {
          chunks.push(chunk);
          yield chunk;
        }
        save({ request: describe(request), chunks });
      } catch (err) {
        if (err instanceof LlmError) {
          const error = err.status === undefined ? { kind: err.kind, message: err.message } : { kind: err.kind, message: err.message, status: err.status };
          save({ request: describe(request), chunks, error });
        } else if (signal.aborted) save({ request: describe(request), chunks, aborted: true });
        throw err;
      }
    },
  };
}

function loadRecording(path: string): { calls: RecordedCall[]; next: number } {
  const existing = cursors.get(path);
  if (existing) return existing;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new LlmError("bad_request", `Cannot read the LLM replay file ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = FileSchema.safeParse(raw);
  if (!parsed.success) throw new LlmError("bad_request", `The LLM replay file ${path} is invalid: ${parsed.error.issues[0]?.message ?? "bad shape"}`);
  const cursor = { calls: parsed.data.calls, next: 0 };
  cursors.set(path, cursor);
  return cursor;
}

function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(abortError(signal));
    else signal.addEventListener("abort", () => reject(abortError(signal)), { once: true });
  });
}

/** Serves the recorded calls in order, whatever is asked. */
export function createReplayClient(path: string): LlmClient {
  return {
    async *stream(_request: LlmRequest, signal: AbortSignal) {
      const cursor = loadRecording(path);
      const call = cursor.calls[cursor.next];
      if (!call) throw new LlmError("bad_request", `The LLM replay ${path} has no more responses (it holds ${cursor.calls.length}).`);
      cursor.next++;
      for (const chunk of call.chunks) {
        if (signal.aborted) throw abortError(signal);
        yield chunk;
      }
      if (call.error) throw new LlmError(call.error.kind, call.error.message, call.error.status);
      if (call.aborted) await waitForAbort(signal);
    },
  };
}

/** Forget loaded recordings and cursors (tests that replay the same file twice). */
export function resetRecordReplay(): void {
  recorders.clear();
  cursors.clear();
}

/** Replay wins over record; with neither variable set the client is returned as is. */
export function wrapForRecordReplay(client: LlmClient, env: Record<string, string | undefined>): LlmClient {
  const replay = env.HERMES_ACP_LLM_REPLAY;
  if (replay) return createReplayClient(replay);
  const record = env.HERMES_ACP_LLM_RECORD;
  if (record) return recordingClient(client, record);
  return client;
}
