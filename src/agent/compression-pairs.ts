// Providers reject a tool result without its call and a tool call without its result, so after cutting
// the history every pair must be whole again (§20.2 "fix orphaned tool_call/tool pairs").
import type { ChatMessage, ToolCall } from "./messages.ts";

export const MISSING_RESULT_STUB = "[Result from earlier conversation — see the context summary above]";

export type PairFix = { messages: ChatMessage[]; droppedResults: number; stubbedCalls: number };

/**
 * Keeps a tool result only inside the run of tool messages right after the assistant that called it
 * (where providers expect it), and gives every call left without a result a stub at the end of that
 * run. Returns copies; the input is not mutated.
 */
export function fixToolPairs(messages: readonly ChatMessage[], stub = MISSING_RESULT_STUB): PairFix {
  const out: ChatMessage[] = [];
  let droppedResults = 0;
  let stubbedCalls = 0;
  // Calls of the latest assistant message that have no result yet, in call order.
  let open: ToolCall[] = [];
  const closeRun = () => {
    for (const call of open) {
      out.push({ role: "tool", content: stub, tool_call_id: call.id, tool_name: call.function.name });
      stubbedCalls++;
    }
    open = [];
  };

  for (const m of messages) {
    if (m.role === "tool") {
      const at = open.findIndex((c) => c.id === m.tool_call_id);
      if (at < 0) {
        droppedResults++;
        continue;
      }
      open.splice(at, 1);
      out.push(m);
      continue;
    }
    closeRun();
    if (m.role === "assistant" && m.tool_calls?.length) open = [...m.tool_calls];
    out.push(m);
  }
  closeRun();
  return { messages: out, droppedResults, stubbedCalls };
}
