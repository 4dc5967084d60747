import type * as acp from "@agentclientprotocol/sdk";
import type { AgentEvent, CardContent } from "../agent/events.ts";
import { assertNever } from "../util/assert-never.ts";

export function toToolCallContent(content: CardContent): acp.ToolCallContent {
  switch (content.type) {
    case "text":
      return { type: "content", content: { type: "text", text: content.text } };
    case "diff":
      return { type: "diff", path: content.path, oldText: content.oldText, newText: content.newText };
    case "terminal":
      return { type: "terminal", terminalId: content.terminalId };
    default:
      return assertNever(content);
  }
}

/** Client capabilities that gate optional update variants (acp-protocol §5). */
export type UpdateGates = { notices: boolean; compaction: boolean };

/** Maps one agent event to the ACP update, or null when the client has not opted in to that variant. */
export function toSessionUpdate(event: AgentEvent, gates: UpdateGates): acp.SessionUpdate | null {
  switch (event.type) {
    case "user_message":
      return {
        sessionUpdate: "user_message_chunk",
        content: { type: "text", text: event.text },
        ...(event.messageId ? { messageId: event.messageId } : {}),
        ...(event.meta ? { _meta: event.meta } : {}),
      };
    case "user_image":
      return {
        sessionUpdate: "user_message_chunk",
        content: { type: "image", data: event.data, mimeType: event.mimeType },
        ...(event.messageId ? { messageId: event.messageId } : {}),
      };
    case "message_chunk":
      return {
        sessionUpdate: "agent_message_chunk",
        messageId: event.messageId,
        content: { type: "text", text: event.text },
        ...(event.meta ? { _meta: event.meta } : {}),
      };
    case "keepalive":
      return { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "" } };
    case "thought_chunk":
      return { sessionUpdate: "agent_thought_chunk", messageId: event.messageId, content: { type: "text", text: event.text } };
    case "tool_start":
      return {
        sessionUpdate: "tool_call",
        toolCallId: event.toolCallId,
        title: event.title,
        kind: event.kind,
        status: event.status ?? "pending",
        locations: event.locations,
        ...(event.content ? { content: event.content.map(toToolCallContent) } : {}),
        ...(event.rawInput !== undefined ? { rawInput: event.rawInput } : {}),
      };
    case "tool_progress":
      return {
        sessionUpdate: "tool_call_update",
        toolCallId: event.toolCallId,
        ...(event.status ? { status: event.status } : {}),
        ...(event.title ? { title: event.title } : {}),
        ...(event.content ? { content: event.content.map(toToolCallContent) } : {}),
      };
    case "tool_end":
      return {
        sessionUpdate: "tool_call_update",
        toolCallId: event.toolCallId,
        status: event.status,
        ...(event.content ? { content: event.content.map(toToolCallContent) } : {}),
        ...(event.rawOutput !== undefined ? { rawOutput: event.rawOutput } : {}),
      };
    case "plan":
      return { sessionUpdate: "plan", entries: event.entries };
    case "usage":
      return {
        sessionUpdate: "usage_update",
        used: event.used,
        size: event.size,
        ...(event.cost !== undefined ? { cost: { amount: event.cost, currency: "USD" } } : {}),
      };
    case "notice":
      if (!gates.notices) return null;
      return {
        sessionUpdate: "notice",
        severity: event.severity,
        title: event.title,
        ...(event.description ? { description: event.description } : {}),
      };
    case "session_info":
      return {
        sessionUpdate: "session_info_update",
        updatedAt: event.updatedAt,
        ...(event.title !== undefined ? { title: event.title } : {}),
        ...(event.meta ? { _meta: event.meta } : {}),
      };
    case "compaction":
      if (!gates.compaction) return null;
      return {
        sessionUpdate: "compaction_update",
        compactionId: event.compactionId,
        status: event.status,
        ...(event.error ? { error: event.error } : {}),
      };
    case "compaction_summary_chunk":
      if (!gates.compaction) return null;
      return {
        sessionUpdate: "compaction_summary_chunk",
        compactionId: event.compactionId,
        content: { type: "text", text: event.text },
      };
    default:
      return assertNever(event);
  }
}
