// Where a compression cuts the history: a protected head, a token-budgeted tail, and the middle to summarise.
// Pure functions over ChatMessage[]; nothing here calls a model or mutates its input.
import type { ChatMessage } from "./messages.ts";
import { textOf } from "./messages.ts";
import { estimateTokens } from "./tokens.ts";

/** Tool outputs longer than this, outside the protected tail, are replaced by a placeholder. */
export const PRUNE_MIN_CHARS = 200;
/** String values inside old tool-call arguments longer than this are shortened (the JSON stays valid). */
const ARG_STRING_MAX = 200;
/** Fewest recent messages kept verbatim, whatever their size (Hermes' hard floor). */
const TAIL_FLOOR = 3;
/** The tail may overshoot its budget by this factor rather than cut inside one oversized message. */
const TAIL_SOFT_FACTOR = 1.5;

export const TODO_NOTE_HEADER = "[Your active task list was preserved across context compression]";
const COMPACTION_MARKERS = ["[CONTEXT COMPACTION", "[CONTEXT SUMMARY]:", TODO_NOTE_HEADER];

export type SplitOptions = { protectFirstN: number; protectLastN: number; tailBudget: number; force?: boolean };

export type Split = {
  /** The history with old tool outputs pruned (same length and order as the input). */
  pruned: ChatMessage[];
  /** Messages [0, headEnd) are kept verbatim before the summary. */
  headEnd: number;
  /** Messages [tailStart, n) are kept after the summary. */
  tailStart: number;
  /** The latest user request when it fell inside the middle: kept verbatim, placed first in the tail. */
  liftedUser: number | null;
  prunedCount: number;
};

/** Rough tokens for one message, with Hermes' per-message overhead. */
export function messageTokens(m: ChatMessage): number {
  return estimateTokens([m]) + 10;
}

/** A user message written by the user or the editor, not one of our compaction notes. */
export function isRealUserMessage(m: ChatMessage): boolean {
  if (m.role !== "user" || m._meta?.compactionSummary) return false;
  const text = textOf(m.content).trimStart();
  return !COMPACTION_MARKERS.some((p) => text.startsWith(p));
}

/** Each tool call's name and arguments by id, so a pruned result can say what produced it. */
function callsById(history: readonly ChatMessage[]): Map<string, { name: string; args: string }> {
  const byId = new Map<string, { name: string; args: string }>();
  for (const m of history) {
    if (m.role !== "assistant") continue;
    for (const c of m.tool_calls ?? []) byId.set(c.id, { name: c.function.name, args: c.function.arguments });
  }
  return byId;
}

/** One line saying what a pruned tool call did, so the kept transcript still reads sensibly. */
function describeCall(name: string, args: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return name;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return name;
  const parts = Object.entries(parsed)
    .slice(0, 2)
    .map(([k, v]) => `${k}=${(typeof v === "string" ? v : JSON.stringify(v) ?? "").replace(/\s+/g, " ").slice(0, 60)}`);
  return parts.length ? `${name} ${parts.join(" ")}` : name;
}

export function prunedPlaceholder(chars: number, what: string): string {
  return `[Old tool output pruned: ${chars} chars] (${what})`;
}

/** Shortens long string leaves of a JSON arguments string; non-JSON arguments are left alone. */
export function shrinkToolArgs(args: string): string {
  if (args.length <= ARG_STRING_MAX * 2) return args;
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return args;
  }
  const shrink = (v: unknown): unknown => {
    if (typeof v === "string") return v.length > ARG_STRING_MAX ? `${v.slice(0, ARG_STRING_MAX)}…[truncated ${v.length - ARG_STRING_MAX} chars]` : v;
    if (Array.isArray(v)) return v.map(shrink);
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shrink(x)]));
    return v;
  };
  return JSON.stringify(shrink(parsed));
}

/** Index from which messages are protected from pruning: the last `protectLastN` and the tail budget. */
function protectedFrom(history: readonly ChatMessage[], protectLastN: number, tailBudget: number): number {
  let from = Math.max(0, history.length - protectLastN);
  let acc = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const t = messageTokens(history[i]!);
    if (acc + t > tailBudget) break;
    acc += t;
    from = Math.min(from, i);
  }
  return from;
}

/** Step 1: old tool outputs become placeholders and old tool-call arguments shrink. Returns copies. */
export function pruneOldToolOutputs(history: readonly ChatMessage[], protectLastN: number, tailBudget: number): { messages: ChatMessage[]; count: number } {
  const boundary = protectedFrom(history, protectLastN, tailBudget);
  const byId = callsById(history);
  let count = 0;
  const messages = history.map((m, i): ChatMessage => {
    if (i >= boundary) return m;
    if (m.role === "tool" && m.content.length > PRUNE_MIN_CHARS && !m.content.startsWith("[Old tool output pruned")) {
      count++;
      const call = byId.get(m.tool_call_id);
      return { ...m, content: prunedPlaceholder(m.content.length, call ? describeCall(call.name, call.args) : m.tool_name) };
    }
    if (m.role === "assistant" && m.tool_calls?.some((c) => shrinkToolArgs(c.function.arguments) !== c.function.arguments)) {
      const tool_calls = m.tool_calls.map((c) => ({ ...c, function: { ...c.function, arguments: shrinkToolArgs(c.function.arguments) } }));
      return { ...m, tool_calls };
    }
    return m;
  });
  return { messages, count };
}

/** The head never ends between an assistant's tool calls and their results. */
function headEndOf(messages: readonly ChatMessage[], protectFirstN: number): number {
  let end = Math.min(Math.max(0, protectFirstN), messages.length);
  while (end < messages.length && messages[end]!.role === "tool") end++;
  return end;
}

/** Walks back from the end while within the (soft) budget, keeping at least `floor` messages. */
function budgetCut(messages: readonly ChatMessage[], headEnd: number, budget: number, floor: number): number {
  const n = messages.length;
  const soft = Math.floor(budget * TAIL_SOFT_FACTOR);
  let acc = 0;
  let cut = n;
  for (let i = n - 1; i >= headEnd; i--) {
    const t = messageTokens(messages[i]!);
    if (acc + t > soft && n - i >= floor) break;
    acc += t;
    cut = i;
  }
  return Math.min(cut, Math.max(headEnd, n - floor));
}

/** A tail never starts on a tool result: move back to the assistant that called it (or forward if that is the head). */
function alignTailStart(messages: readonly ChatMessage[], headEnd: number, cut: number): number {
  let back = cut;
  while (back > headEnd && back < messages.length && messages[back]!.role === "tool") back--;
  if (back >= messages.length || messages[back]!.role !== "tool") return back;
  let forward = cut;
  while (forward < messages.length && messages[forward]!.role === "tool") forward++;
  return forward;
}

function lastRealUser(messages: readonly ChatMessage[], from: number, to: number): number | null {
  for (let i = to - 1; i >= from; i--) if (isRealUserMessage(messages[i]!)) return i;
  return null;
}

function splitWithBudget(pruned: ChatMessage[], o: SplitOptions, budget: number, prunedCount: number): Split {
  const n = pruned.length;
  const headEnd = headEndOf(pruned, o.protectFirstN);
  // Hermes keeps at least one message in the middle when the floor would swallow it.
  const floor = Math.min(TAIL_FLOOR, Math.max(0, o.protectLastN), Math.max(0, n - headEnd - 1));
  let tailStart = alignTailStart(pruned, headEnd, budgetCut(pruned, headEnd, budget, floor));
  // Hermes #10896: the latest user request must survive verbatim, or the model loses its active task.
  let liftedUser = lastRealUser(pruned, headEnd, tailStart);
  if (liftedUser !== null && lastRealUser(pruned, tailStart, n) !== null) liftedUser = null;
  if (liftedUser !== null && liftedUser === tailStart - 1) {
    tailStart = liftedUser;
    liftedUser = null;
  }
  return { pruned, headEnd, tailStart, liftedUser, prunedCount };
}

/** The messages to summarise, from `source` (pass the unpruned history so the summariser sees full outputs). */
export function middleOf(split: Split, source: readonly ChatMessage[] = split.pruned): ChatMessage[] {
  // The lifted user message stays in: the summariser needs to know what the work since was for.
  return source.slice(split.headEnd, split.tailStart);
}

/** Whether anything would actually be replaced by the summary. */
export function hasMiddle(split: Split): boolean {
  const size = split.tailStart - split.headEnd;
  return size > (split.liftedUser === null ? 0 : 1);
}

/**
 * Steps 1–2 of §20.2: prune, then choose head and tail. When the budgeted tail would swallow the whole
 * middle (the pruned outputs fit the budget), fall back to the minimal tail as Hermes does, so an
 * automatic compression always makes progress; without `force` that fallback is refused when the
 * history after the head is within the tail budget anyway (compressing it would gain nothing).
 */
export function planSplit(history: readonly ChatMessage[], o: SplitOptions): Split {
  const { messages: pruned, count } = pruneOldToolOutputs(history, o.protectLastN, o.tailBudget);
  const split = splitWithBudget(pruned, o, o.tailBudget, count);
  if (hasMiddle(split)) return split;
  const afterHead = history.slice(split.headEnd).reduce((n, m) => n + messageTokens(m), 0);
  if (!o.force && afterHead <= o.tailBudget) return split;
  return splitWithBudget(pruned, o, 0, count);
}
