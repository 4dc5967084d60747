import type { ChatMessage } from "./messages.ts";

/** A rough token estimate (~4 characters a token), used when the provider gives no usage. */
export function estimateTokens(messages: ChatMessage[]): number {
  let chars = 0;
  for (const m of messages) {
    if (typeof m.content === "string") chars += m.content.length;
    else if (Array.isArray(m.content)) for (const p of m.content) chars += p.type === "text" ? p.text.length : 1000;
    if (m.role === "assistant") {
      for (const c of m.tool_calls ?? []) chars += c.function.name.length + c.function.arguments.length;
      chars += (m.reasoning_content ?? "").length;
    }
  }
  return Math.ceil(chars / 4);
}
