// ChatMessage <-> `messages` row, with Hermes' encodings (state-db-schema.md §4, §9.7).
import { z } from "zod";
import type { ChatMessage, ContentPart, MessageContent, ToolCall } from "../agent/messages.ts";
import { lazy } from "../util/lazy.ts";

/** Hermes' sentinel for structured (list/dict) content stored in a TEXT column. */
export const JSON_CONTENT_PREFIX = "\u0000json:";

/** The message columns hermes-acp writes (everything else keeps its DEFAULT/NULL). */
export type MessageRowValues = {
  role: string;
  content: string | null;
  tool_call_id: string | null;
  tool_calls: string | null;
  tool_name: string | null;
  finish_reason: string | null;
  reasoning: string | null;
  reasoning_content: string | null;
};

export function encodeContent(content: unknown): string | null {
  if (content == null) return null;
  if (typeof content === "string") return content;
  return JSON_CONTENT_PREFIX + JSON.stringify(content);
}

/** Strips the sentinel and parses; a broken payload degrades to the raw text after the prefix. */
export function decodeContent(stored: string | null): unknown {
  if (stored == null || !stored.startsWith(JSON_CONTENT_PREFIX)) return stored;
  const payload = stored.slice(JSON_CONTENT_PREFIX.length);
  try {
    return JSON.parse(payload);
  } catch {
    return payload;
  }
}

export function toMessageRow(message: ChatMessage): MessageRowValues {
  const row: MessageRowValues = {
    role: message.role,
    content: encodeContent(message.content),
    tool_call_id: null,
    tool_calls: null,
    tool_name: null,
    finish_reason: null,
    reasoning: null,
    reasoning_content: null,
  };
  if (message.role === "tool") {
    row.tool_call_id = message.tool_call_id;
    row.tool_name = message.tool_name;
  } else if (message.role === "assistant") {
    // Hermes writes NULL for an empty list (falsy), never "[]".
    row.tool_calls = message.tool_calls && message.tool_calls.length > 0 ? JSON.stringify(message.tool_calls) : null;
    row.finish_reason = message.finish_reason ?? null;
    row.reasoning = message.reasoning ?? null;
    row.reasoning_content = message.reasoning_content ?? null;
  }
  return row;
}

export function toolCallCountOf(message: ChatMessage): number {
  return message.role === "assistant" ? (message.tool_calls?.length ?? 0) : 0;
}

/** A stored row as read back. */
export type StoredMessageRow = {
  id: number;
  role: string;
  timestamp: number;
} & { [K in "content" | "tool_call_id" | "tool_calls" | "tool_name" | "finish_reason" | "reasoning" | "reasoning_content"]: string | null };

// Rows and their tool calls are read with plain checks, not zod: a session/load decodes thousands of them in a
// cold process, where zod's parsers (interpreted until the JIT warms up) took ~50 of the replay's ~140 ms.

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const textOrNull = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** A `messages` row as SQLite returned it; each text column degrades to null on its own; no id, role or time, no row. */
export function storedMessageRow(raw: unknown): StoredMessageRow | null {
  if (!isRecord(raw) || typeof raw.id !== "number" || typeof raw.role !== "string" || typeof raw.timestamp !== "number") return null;
  return {
    id: raw.id,
    role: raw.role,
    timestamp: raw.timestamp,
    content: textOrNull(raw.content),
    tool_call_id: textOrNull(raw.tool_call_id),
    tool_calls: textOrNull(raw.tool_calls),
    tool_name: textOrNull(raw.tool_name),
    finish_reason: textOrNull(raw.finish_reason),
    reasoning: textOrNull(raw.reasoning),
    reasoning_content: textOrNull(raw.reasoning_content),
  };
}

/** One stored tool call; arguments as an object (seen in hand-edited rows) are re-serialised, anything else is `{}`. */
function toolCallOf(entry: unknown): ToolCall | null {
  if (!isRecord(entry) || typeof entry.id !== "string" || !isRecord(entry.function) || typeof entry.function.name !== "string") return null;
  const args = entry.function.arguments;
  const text = typeof args === "string" ? args : isRecord(args) ? JSON.stringify(args) : "{}";
  return { id: entry.id, type: "function", function: { name: entry.function.name, arguments: text } };
}

const contentPartSchema = lazy(() =>
  z.union([
    z.object({ type: z.literal("text"), text: z.string() }),
    z.object({ type: z.literal("image_url"), image_url: z.object({ url: z.string() }) }),
  ]),
);

/** Parses `tool_calls`; keeps every valid entry and drops the rest (never throws). */
export function decodeToolCalls(stored: string | null): ToolCall[] {
  if (stored == null || stored === "") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  const calls: ToolCall[] = [];
  for (const entry of parsed) {
    const call = toolCallOf(entry);
    if (call) calls.push(call);
  }
  return calls;
}

/** Structured user content: known parts kept, other parts dropped; anything else becomes text. */
function toMessageContent(value: unknown): MessageContent {
  if (typeof value === "string") return value;
  if (value == null) return "";
  if (Array.isArray(value)) {
    const parts: ContentPart[] = [];
    for (const entry of value) {
      const result = contentPartSchema().safeParse(entry);
      if (result.success) parts.push(result.data);
    }
    return parts;
  }
  return JSON.stringify(value);
}

function toText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value == null) return "";
  const content = toMessageContent(value);
  if (typeof content === "string") return content;
  return content.map((p) => (p.type === "text" ? p.text : "")).filter(Boolean).join("\n");
}

/** Row -> ChatMessage; null for roles hermes-acp does not model (skipped by the caller). */
export function fromMessageRow(row: StoredMessageRow): ChatMessage | null {
  const content = decodeContent(row.content);
  switch (row.role) {
    case "system":
      return { role: "system", content: toText(content) };
    case "user":
      return { role: "user", content: toMessageContent(content) };
    case "assistant": {
      const message: Extract<ChatMessage, { role: "assistant" }> = {
        role: "assistant",
        content: content == null ? null : toText(content),
      };
      const toolCalls = decodeToolCalls(row.tool_calls);
      if (toolCalls.length > 0) message.tool_calls = toolCalls;
      if (row.reasoning != null) message.reasoning = row.reasoning;
      if (row.reasoning_content != null) message.reasoning_content = row.reasoning_content;
      if (row.finish_reason != null) message.finish_reason = row.finish_reason;
      return message;
    }
    case "tool":
      return {
        role: "tool",
        content: toText(content),
        tool_call_id: row.tool_call_id ?? "",
        tool_name: row.tool_name ?? "",
      };
    default:
      return null;
  }
}
