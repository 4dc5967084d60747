// Builders and a scripted LlmClient shared by the compression tests (not a test file itself).
import type { ChatMessage, ToolCall } from "../../src/agent/messages.ts";
import { textOf } from "../../src/agent/messages.ts";
import type { LlmChunk, LlmClient, LlmRequest } from "../../src/llm/types.ts";

/** A unique, non-overlapping marker for message `i`. */
export const mark = (i: number): string => `<<m${String(i).padStart(3, "0")}>>`;

export const user = (text: string): ChatMessage => ({ role: "user", content: text });
export const said = (text: string): ChatMessage => ({ role: "assistant", content: text });
export const call = (id: string, name = "read_file", args: unknown = { path: `src/${id}.ts` }): ToolCall => ({
  id,
  type: "function",
  function: { name, arguments: JSON.stringify(args) },
});
export const calls = (text: string | null, ...tc: ToolCall[]): ChatMessage => ({ role: "assistant", content: text, tool_calls: tc });
export const result = (id: string, content: string, name = "read_file"): ChatMessage => ({ role: "tool", content, tool_call_id: id, tool_name: name });

/** ~`tokens` rough tokens of filler carrying `marker` at its start. */
export const filler = (marker: string, tokens: number): string => `${marker} ${"x".repeat(Math.max(0, tokens * 4 - marker.length - 1))}`;

/** Every tool message sits in the run right after the assistant that called it, and every call has a result. */
export function assertProviderValid(messages: readonly ChatMessage[]): void {
  let open: string[] = [];
  for (const [i, m] of messages.entries()) {
    if (m.role === "tool") {
      if (!open.includes(m.tool_call_id)) throw new Error(`tool result ${m.tool_call_id} at ${i} has no preceding call`);
      open = open.filter((id) => id !== m.tool_call_id);
      continue;
    }
    if (open.length) throw new Error(`calls ${open.join(",")} have no result before message ${i}`);
    if (m.role === "assistant") open = (m.tool_calls ?? []).map((c) => c.id);
  }
  if (open.length) throw new Error(`calls ${open.join(",")} have no result at the end`);
}

export const textOfMessage = (m: ChatMessage): string => (m.role === "assistant" ? `${m.content ?? ""} ${JSON.stringify(m.tool_calls ?? [])}` : textOf(m.content));

type Script = (request: LlmRequest, signal: AbortSignal) => AsyncIterable<LlmChunk>;

/** A fake LlmClient: records requests and plays a script. */
export class ScriptedLlm implements LlmClient {
  readonly requests: LlmRequest[] = [];
  constructor(private readonly script: Script) {}
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmChunk> {
    this.requests.push(request);
    return this.script(request, signal);
  }
}

/** Streams `pieces` as text chunks, then done with their concatenation. */
export function replies(...pieces: string[]): ScriptedLlm {
  return new ScriptedLlm(async function* () {
    for (const text of pieces) yield { type: "text", text };
    yield { type: "done", content: pieces.join(""), reasoning: "", toolCalls: [], finishReason: "stop" };
  });
}

export function fails(error: Error): ScriptedLlm {
  return new ScriptedLlm(async function* () {
    yield { type: "text", text: "partial summary" };
    throw error;
  });
}
