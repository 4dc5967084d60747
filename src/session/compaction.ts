import { compressHistory, compressionSettings, shouldCompress, type CompressionSettings } from "../agent/compression.ts";
import { estimateTokens } from "../agent/tokens.ts";
import type { Runtime } from "../llm/resolve.ts";
import type { LlmClient } from "../llm/types.ts";
import { todoStoreOf } from "../tools/todo-store.ts";
import { log } from "../util/log.ts";
import type { LiveSession } from "./live-session.ts";
import { newHermesSessionId } from "./store.ts";
import { settingsToModelConfig } from "./settings.ts";
import { isCompactionSummary } from "./replay.ts";
import { DISPLAY_FROM_KEY } from "./lineage-keys.ts";
import { summariserFor } from "./summariser.ts";

export type CompactionOutcome =
  | { ok: true; before: { messages: number; tokens: number }; after: { messages: number; tokens: number } }
  | { ok: false; error: string };


export function sessionCompressionSettings(session: LiveSession, runtime: Runtime): { settings: CompressionSettings; enabled: boolean } {
  const cfg = session.services.config();
  const context = session.contextSize(runtime);
  if (!cfg.ok) {
    return { settings: { threshold: 0.5, targetRatio: 0.2, protectFirstN: 3, protectLastN: 20, contextLength: context }, enabled: true };
  }
  return { settings: compressionSettings(cfg.config, context, runtime.maxTokens), enabled: cfg.config.compression.enabled !== false };
}

/**
 * Compresses the session's context and rotates its internal Hermes session, as Hermes does: the old
 * row ends with 'compression', a continuation row holds the compressed context. The ACP id never
 * changes. A failed summary leaves everything as it was.
 */
export async function compactSession(
  session: LiveSession,
  input: { runtime: Runtime; llm: LlmClient; signal: AbortSignal; force: boolean },
): Promise<CompactionOutcome> {
  const sink = session.ports.sink;
  const compactionId = crypto.randomUUID();
  await sink.emit({ type: "compaction", compactionId, status: "in_progress" });
  const { settings } = sessionCompressionSettings(session, input.runtime);
  const summariser = await summariserFor(session, input.runtime, input.llm);
  const result = await compressHistory({
    history: session.history,
    llm: summariser.llm,
    model: summariser.model,
    settings,
    signal: input.signal,
    todos: todoStoreOf(session.toolState).read(),
    force: input.force,
    onSummaryChunk: (text) => void sink.emit({ type: "compaction_summary_chunk", compactionId, text }),
  });
  if (!result.ok) {
    await sink.emit({ type: "compaction", compactionId, status: input.signal.aborted ? "cancelled" : "failed", error: result.error });
    return result;
  }

  const previous = session.hermesId;
  const next = newHermesSessionId();
  const summaryIndex = result.messages.findIndex(isCompactionSummary);
  try {
    session.services.store().rotateForCompression(previous, next, {
      source: "acp",
      model: input.runtime.model,
      modelConfig: {
        ...settingsToModelConfig(session.settings),
        acp_session_id: session.id,
        // Replay shows the parent's messages, then this summary, then what follows the compressed context.
        [DISPLAY_FROM_KEY]: result.messages.length,
        acp_summary_index: summaryIndex,
      },
      messages: result.messages,
    });
  } catch (e) {
    log.error(`compression rotation of session ${session.id} failed; keeping the uncompressed context`, e);
    await sink.emit({ type: "compaction", compactionId, status: "failed", error: String(e) });
    return { ok: false, error: `could not save the compressed context (${e instanceof Error ? e.message : String(e)})` };
  }
  session.hermesId = next;
  // The loop holds this array: replace its contents, not the reference.
  session.history.splice(0, session.history.length, ...result.messages);
  await sink.emit({ type: "compaction", compactionId, status: "completed" });
  await sink.emit({
    type: "session_info",
    title: session.title,
    updatedAt: new Date().toISOString(),
    ...(session.provenanceMeta(previous) ? { meta: session.provenanceMeta(previous) } : {}),
  });
  log.info(`Compressed session ${session.id}: ${result.before.messages} → ${result.after.messages} messages (${previous} → ${next})`);
  return { ok: true, before: result.before, after: result.after };
}

/** Automatic compression before a model call, when the context has reached the threshold. */
export async function maybeCompact(
  session: LiveSession,
  input: {
    runtime: Runtime;
    llm: LlmClient;
    signal: AbortSignal;
    promptTokens?: number;
    systemPrompt: string;
    /** Runs before compression starts (the turn saves its pending user message: the rotation copies history). */
    beforeCompaction?: () => void;
  },
): Promise<void> {
  const { settings, enabled } = sessionCompressionSettings(session, input.runtime);
  if (!enabled) return;
  const tokens = input.promptTokens ?? estimateTokens(session.history) + Math.ceil(input.systemPrompt.length / 4);
  if (!shouldCompress(tokens, settings)) return;
  input.beforeCompaction?.();
  const outcome = await compactSession(session, { runtime: input.runtime, llm: input.llm, signal: input.signal, force: false });
  if (!outcome.ok) log.warn(`automatic compression of session ${session.id} failed: ${outcome.error}`);
}
