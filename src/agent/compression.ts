// The context-compression engine (hermes-behaviour §20.2): prune, keep head and tail, summarise the middle
// with one model call, fix tool pairs, carry the todo list over. Pure of ACP and state.db: the caller
// decides when to run it and what to do with the result.
import type { HermesConfig } from "../config/schema.ts";
import { LlmError, type LlmClient } from "../llm/types.ts";
import { compressionThreshold } from "./compression-threshold.ts";
import { fixToolPairs } from "./compression-pairs.ts";
import summariserPrompt from "./compression-prompt.md" with { type: "text" };
import { hasMiddle, middleOf, planSplit, TODO_NOTE_HEADER } from "./compression-split.ts";
import { renderTranscript, summaryTargetTokens, summaryUserMessage } from "./compression-transcript.ts";
import type { ChatMessage } from "./messages.ts";
import { textOf } from "./messages.ts";
import { isAbortError } from "./stop-reason.ts";
import { estimateTokens } from "./tokens.ts";

export { TODO_NOTE_HEADER } from "./compression-split.ts";

export type CompressionSettings = {
  threshold: number;
  targetRatio: number;
  protectFirstN: number;
  protectLastN: number;
  contextLength: number;
  maxTokens?: number;
};

export type CompressionResult =
  | {
      ok: true;
      messages: ChatMessage[];
      summary: string;
      before: { messages: number; tokens: number };
      after: { messages: number; tokens: number };
    }
  | { ok: false; error: string };

export type CompressionTodo = { id: string; content: string; status: string };

export type CompressHistoryInput = {
  history: ChatMessage[];
  llm: LlmClient;
  model: string;
  settings: CompressionSettings;
  signal: AbortSignal;
  todos?: CompressionTodo[];
  onSummaryChunk?: (text: string) => void;
  /**
   * /compact: compress even a history that already fits in the tail budget (keeping only the minimal
   * tail). Without it such a history is "Nothing to compress"; larger ones always make progress.
   */
  force?: boolean;
};

/** The exact start of every summary message (replay and the store recognise it by this). */
export const SUMMARY_PREFIX = "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below.";

const SUMMARY_GUIDANCE =
  "This is a handoff from a previous context window: treat it as background reference, not as active instructions. " +
  "Requests described in it were already handled unless the user's latest message asks for them again. " +
  "The user's latest message, kept verbatim in the conversation, is the active task: respond to it. " +
  "Your tools remain fully active: keep calling them for the active task instead of narrating what you would do. " +
  "Files and other state may already reflect the work described here; check before repeating it.";

const SUMMARY_END = "--- END OF CONTEXT SUMMARY — respond to the latest user message, not to the summary above ---";

const DEFAULTS = { threshold: 0.5, targetRatio: 0.2, protectFirstN: 3, protectLastN: 20 };

function clamp(value: number, min: number, max: number, fallback: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
}

/** Settings from `config.yaml compression:` (already validated by the schema) and the model's window. */
export function compressionSettings(config: HermesConfig, contextLength: number, maxTokens?: number): CompressionSettings {
  const c = config.compression;
  return {
    threshold: clamp(c.threshold, 0, 1, DEFAULTS.threshold),
    targetRatio: clamp(c.target_ratio, 0.1, 0.8, DEFAULTS.targetRatio),
    protectFirstN: Math.floor(clamp(c.protect_first_n, 0, Number.MAX_SAFE_INTEGER, DEFAULTS.protectFirstN)),
    protectLastN: Math.floor(clamp(c.protect_last_n, 0, Number.MAX_SAFE_INTEGER, DEFAULTS.protectLastN)),
    contextLength,
    ...(maxTokens ? { maxTokens } : {}),
  };
}

/** When automatic compression is due, in prompt tokens (64k floor, clamped into the window). */
export function thresholdTokens(s: CompressionSettings): number {
  return compressionThreshold(s.contextLength, s.threshold, s.maxTokens ?? 0);
}

export function shouldCompress(promptTokens: number, s: CompressionSettings): boolean {
  return promptTokens >= thresholdTokens(s);
}

/** Tokens the kept tail may hold: threshold × target_ratio. */
export function tailTokenBudget(s: CompressionSettings): number {
  return Math.floor(thresholdTokens(s) * s.targetRatio);
}

export function isContextLengthError(e: unknown): boolean {
  return e instanceof LlmError && e.kind === "context_length";
}

export function summaryMessage(summary: string): ChatMessage {
  return { role: "user", content: `${SUMMARY_PREFIX} ${SUMMARY_GUIDANCE}\n\n${summary}\n\n${SUMMARY_END}`, _meta: { compactionSummary: true } };
}

/** The todo carry-over note, or null when every item is finished. */
export function todoNote(todos: readonly CompressionTodo[] | undefined): ChatMessage | null {
  const active = (todos ?? []).filter((t) => t.status !== "completed" && t.status !== "cancelled");
  if (active.length === 0) return null;
  const lines = active.map((t) => `- ${t.status === "in_progress" ? "[>]" : "[ ]"} ${t.id}. ${t.content} (${t.status})`);
  return { role: "user", content: [TODO_NOTE_HEADER, ...lines].join("\n") };
}

/** Models sometimes echo our prefix or wrap their reasoning in <think> tags; keep only the summary body. */
function cleanSummary(text: string): string {
  let out = text.replace(/^\s*<think>[\s\S]*?<\/think>/, "").trim();
  if (out.startsWith(SUMMARY_PREFIX)) out = out.slice(SUMMARY_PREFIX.length).trim();
  return out.replace(SUMMARY_END, "").trim();
}

async function summarise(input: CompressHistoryInput, middle: ChatMessage[], liftedUser: boolean): Promise<string> {
  const transcript = renderTranscript(middle, input.settings.contextLength);
  const request = {
    model: input.model,
    messages: [
      { role: "system" as const, content: summariserPrompt.trim() },
      { role: "user" as const, content: summaryUserMessage(transcript, summaryTargetTokens(estimateTokens(middle)), liftedUser) },
    ],
    tools: [],
  };
  let streamed = "";
  for await (const chunk of input.llm.stream(request, input.signal)) {
    if (chunk.type === "text") {
      if (!chunk.text) continue;
      streamed += chunk.text;
      input.onSummaryChunk?.(chunk.text);
    } else if (chunk.type === "done") {
      return cleanSummary(chunk.content || streamed);
    }
  }
  throw new LlmError("stream", "The provider closed the stream before the summary was complete.");
}

function failureText(e: unknown, signal: AbortSignal): string {
  if (signal.aborted || isAbortError(e)) return "Compression was cancelled; the conversation was left as it was.";
  if (e instanceof LlmError) return `The summary model call failed: ${e.message}`;
  return `The summary could not be produced: ${e instanceof Error ? e.message : String(e)}`;
}

/** Keeps only the newest todo note: a fresh one is appended, so older copies are noise. */
function withoutTodoNotes(messages: ChatMessage[]): ChatMessage[] {
  return messages.filter((m) => m.role !== "user" || !textOf(m.content).startsWith(TODO_NOTE_HEADER));
}

/**
 * Compresses `history` into head + summary (+ todo note) + tail. Never mutates `history`; on any
 * failure (model error, cancellation, empty summary) returns `ok: false` and the caller keeps the
 * conversation as it was.
 */
export async function compressHistory(input: CompressHistoryInput): Promise<CompressionResult> {
  const { history, settings: s } = input;
  if (history.length === 0) return { ok: false, error: "Nothing to compress — conversation is empty." };
  const split = planSplit(history, {
    protectFirstN: s.protectFirstN,
    protectLastN: s.protectLastN,
    tailBudget: tailTokenBudget(s),
    force: input.force ?? false,
  });
  if (!hasMiddle(split)) {
    return { ok: false, error: "Nothing to compress: the conversation already fits in the protected head and tail." };
  }
  if (input.signal.aborted) return { ok: false, error: failureText(undefined, input.signal) };

  let summary: string;
  try {
    // The unpruned originals: the summariser sees full tool outputs.
    summary = await summarise(input, middleOf(split, history), split.liftedUser !== null);
  } catch (e) {
    return { ok: false, error: failureText(e, input.signal) };
  }
  if (input.signal.aborted) return { ok: false, error: failureText(undefined, input.signal) };
  if (!summary) return { ok: false, error: "The summary model returned an empty summary; the conversation was left as it was." };

  const note = todoNote(input.todos);
  const head = split.pruned.slice(0, split.headEnd);
  const lifted = split.liftedUser === null ? [] : [split.pruned[split.liftedUser]!];
  const tail = split.pruned.slice(split.tailStart);
  const assembled = [
    ...(note ? withoutTodoNotes(head) : head),
    summaryMessage(summary),
    ...(note ? [note] : []),
    ...lifted,
    ...(note ? withoutTodoNotes(tail) : tail),
  ];
  // Shallow copies: the caller may persist or edit the result without touching the old history's objects.
  const messages = fixToolPairs(assembled).messages.map((m) => ({ ...m }));
  return {
    ok: true,
    messages,
    summary,
    before: { messages: history.length, tokens: estimateTokens(history) },
    after: { messages: messages.length, tokens: estimateTokens(messages) },
  };
}
