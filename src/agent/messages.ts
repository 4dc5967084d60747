/** The conversation as the model and state.db see it: OpenAI chat-completions shaped messages. */

export type ContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

export type MessageContent = string | ContentPart[];

/** One function call requested by the model; `arguments` is the raw JSON string the provider sent. */
export type ToolCall = {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
};

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: MessageContent; _meta?: MessageMeta }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: ToolCall[];
      reasoning_content?: string | null;
      reasoning?: string | null;
      finish_reason?: string | null;
      _meta?: MessageMeta;
    }
  | { role: "tool"; content: string; tool_call_id: string; tool_name: string };

/** Flags kept beside a message in memory (never sent to a provider). */
export type MessageMeta = { compactionSummary?: boolean };

export function textOf(content: MessageContent | null | undefined): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content
    .map((p) => (p.type === "text" ? p.text : ""))
    .filter(Boolean)
    .join("\n");
}
