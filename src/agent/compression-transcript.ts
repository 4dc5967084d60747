// The middle of the conversation rendered as plain text for the summariser: one model call, no tools,
// bounded in size so the summary request itself cannot overflow the window.
import { redact } from "../util/redact.ts";
import type { ChatMessage, MessageContent } from "./messages.ts";

/** Per-message cap; long outputs keep their start and end, where the useful lines usually are. */
const MESSAGE_MAX_CHARS = 6_000;
const MESSAGE_HEAD_CHARS = 4_000;
const TOOL_ARGS_MAX_CHARS = 1_500;
/** Whole-transcript cap (~40k tokens), further limited by the model's window. */
const TRANSCRIPT_MAX_CHARS = 160_000;

function clip(text: string, max: number, head: number): string {
  if (text.length <= max) return text;
  const tail = Math.max(0, max - head);
  return `${text.slice(0, head)}\n…[${text.length - head - tail} chars omitted]…\n${tail ? text.slice(-tail) : ""}`;
}

function contentText(content: MessageContent | null): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content.map((p) => (p.type === "text" ? p.text : p.image_url.url.startsWith("http") ? `[image: ${p.image_url.url}]` : "[image]")).join("\n");
}

function renderMessage(m: ChatMessage): string {
  switch (m.role) {
    case "system":
      return `SYSTEM:\n${clip(m.content, MESSAGE_MAX_CHARS, MESSAGE_HEAD_CHARS)}`;
    case "user":
      return `USER:\n${clip(contentText(m.content), MESSAGE_MAX_CHARS, MESSAGE_HEAD_CHARS)}`;
    case "assistant": {
      const lines = ["ASSISTANT:"];
      const text = contentText(m.content).trim();
      if (text) lines.push(clip(text, MESSAGE_MAX_CHARS, MESSAGE_HEAD_CHARS));
      for (const c of m.tool_calls ?? []) {
        lines.push(`→ tool call ${c.function.name}(${clip(c.function.arguments, TOOL_ARGS_MAX_CHARS, TOOL_ARGS_MAX_CHARS - 300)}) [id ${c.id}]`);
      }
      return lines.join("\n");
    }
    case "tool":
      return `TOOL RESULT ${m.tool_name} [id ${m.tool_call_id}]:\n${clip(m.content, MESSAGE_MAX_CHARS, MESSAGE_HEAD_CHARS)}`;
  }
}

/** Renders `messages` for the summariser, capped at `maxChars`, with secrets masked. */
export function renderTranscript(messages: readonly ChatMessage[], contextLength: number): string {
  // Leave the summariser half its window for the prompt's own text and the summary (~4 chars a token).
  const maxChars = Math.max(8_000, Math.min(TRANSCRIPT_MAX_CHARS, Math.floor(contextLength / 2) * 4));
  const text = messages.map((m, i) => `[${i + 1}] ${renderMessage(m)}`).join("\n\n");
  // Keep more of the end: the latest state matters most to whoever continues the work.
  return redact(clip(text, maxChars, Math.floor(maxChars * 0.4)));
}

/** The summary's size target: a fifth of what it replaces, within 500–8,000 tokens. */
export function summaryTargetTokens(middleTokens: number): number {
  return Math.min(8_000, Math.max(500, Math.round(middleTokens * 0.2)));
}

export function summaryUserMessage(transcript: string, targetTokens: number, liftedUser: boolean): string {
  return [
    `Summarise the conversation turns below (about ${targetTokens} tokens at most).`,
    liftedUser ? "The user's latest message (the last USER message below) is kept verbatim after your summary." : "",
    "",
    "<transcript>",
    transcript,
    "</transcript>",
  ]
    .filter((line, i) => i !== 1 || line)
    .join("\n");
}
