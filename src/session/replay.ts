import type { AgentEvent } from "../agent/events.ts";
import type { ChatMessage, MessageContent } from "../agent/messages.ts";
import { coerceArgs, planFromTodoResult, toolCompletion, toolKind, toolLocations, toolRawInput, toolStartContent, toolTitle } from "../tools/display.ts";

/** The summary message compression leaves behind starts with one of these (hermes-behaviour §20.2). */
export const COMPACTION_PREFIXES = ["[CONTEXT COMPACTION — REFERENCE ONLY]", "[CONTEXT SUMMARY]:"];

export function isCompactionSummary(message: ChatMessage): boolean {
  const text = typeof message.content === "string" ? message.content : "";
  return COMPACTION_PREFIXES.some((p) => text.startsWith(p));
}

export type ReplayItem = { message: ChatMessage; messageId: string };

function flatten(content: unknown): string {
  if (typeof content === "string") return content.trim();
  if (!Array.isArray(content)) return "";
  return content
    .map((item: unknown) => {
      if (typeof item === "string") return item.trim();
      if (item && typeof item === "object") {
        const o = item as Record<string, unknown>;
        if (typeof o.text === "string") return o.text.trim();
        if (o.type === "text" && typeof o.content === "string") return o.content.trim();
      }
      return "";
    })
    .filter(Boolean)
    .join("\n")
    .trim();
}

function images(content: MessageContent | null): { data: string; mimeType: string }[] {
  if (!Array.isArray(content)) return [];
  const out: { data: string; mimeType: string }[] = [];
  for (const part of content) {
    if (part.type !== "image_url") continue;
    const m = /^data:([^;]+);base64,(.*)$/s.exec(part.image_url.url);
    if (m) out.push({ mimeType: m[1]!, data: m[2]! });
  }
  return out;
}

/** History → the updates a client needs to show it again (hermes-behaviour §8), in order. */
export function* replayEvents(items: ReplayItem[], cwd: string): Generator<AgentEvent> {
  const started = new Map<string, { name: string; args: Record<string, unknown> }>();
  for (const { message, messageId } of items) {
    switch (message.role) {
      case "user": {
        const summary = isCompactionSummary(message);
        const text = flatten(message.content);
        if (text) {
          yield {
            type: "user_message",
            messageId,
            text,
            ...(summary ? { meta: { "hermes.compactionSummary": true, "hermes.containsCompactionSummary": true } } : {}),
          };
        }
        for (const img of images(message.content)) yield { type: "user_image", messageId, ...img };
        break;
      }
      case "assistant": {
        const reasoning = flatten(message.reasoning_content) || flatten(message.reasoning);
        if (reasoning) yield { type: "thought_chunk", messageId: `${messageId}-thought`, text: reasoning };
        const text = flatten(message.content);
        if (text) {
          const summary = isCompactionSummary(message);
          yield {
            type: "message_chunk",
            messageId,
            text,
            ...(summary ? { meta: { "hermes.compactionSummary": true, "hermes.containsCompactionSummary": true } } : {}),
          };
        }
        for (const call of message.tool_calls ?? []) {
          const id = call.id?.trim();
          if (!id) continue;
          const name = call.function?.name || "unknown_tool";
          const args = coerceArgs(call.function?.arguments);
          started.set(id, { name, args });
          yield {
            type: "tool_start",
            toolCallId: id,
            name,
            title: toolTitle(name, args),
            kind: toolKind(name),
            locations: toolLocations(name, args, cwd),
            content: toolStartContent(name, args),
            rawInput: toolRawInput(name, args),
          };
        }
        break;
      }
      case "tool": {
        const id = message.tool_call_id?.trim();
        const start = id ? started.get(id) : undefined;
        const name = start?.name ?? message.tool_name;
        if (!id || !name) break;
        const result = typeof message.content === "string" ? message.content : "";
        const shown = toolCompletion(name, start?.args ?? {}, result);
        yield {
          type: "tool_end",
          toolCallId: id,
          status: shown.status,
          content: shown.content,
          ...(shown.rawOutput !== undefined ? { rawOutput: shown.rawOutput } : {}),
        };
        if (name === "todo") {
          const entries = planFromTodoResult(result);
          if (entries) yield { type: "plan", entries };
        }
        break;
      }
      case "system":
        break;
    }
  }
}
