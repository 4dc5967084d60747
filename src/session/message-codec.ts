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

/** A stored row as read back; each column degrades on its own rather than failing the row. */
export const storedMessageRowSchema = lazy(() => {
  const nullableText = z.string().nullable().catch(null);
  return z.object({
    id: z.number(),
    role: z.string(),
    content: nullableText,
    tool_call_id: nullableText,
    tool_calls: nullableText,
    tool_name: nullableText,
    timestamp: z.number(),
    finish_reason: nullableText,
    reasoning: nullableText,
    reasoning_content: nullableText,
  });
});
export type StoredMessageRow = z.infer<ReturnType<typeof storedMessageRowSchema>>;

const toolCallSchema = lazy(() =>
  z.object({
    id: z.string(),
    type: z.literal("function").catch("function"),
    function: z.object({
      name: z.string(),
      // Providers send a JSON string; an object (seen in hand-edited rows) is re-serialised.
      arguments: z.union([z.string(), z.record(z.string(), z.unknown()).transform((o) => JSON.stringify(o))]).catch("{}"),
    }),
  }),
);

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
    const result = toolCallSchema().safeParse(entry);
    if (result.success) calls.push(result.data);
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
