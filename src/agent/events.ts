/** What the agent reports while it works. The bridge turns each into an ACP `session/update`. */

export type ToolKind = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "switch_mode" | "other";

/** What a tool card shows. Mirrors ACP ToolCallContent without depending on the SDK. */
export type CardContent =
  | { type: "text"; text: string }
  | { type: "diff"; path: string; oldText: string | null; newText: string }
  | { type: "terminal"; terminalId: string };

export type Location = { path: string; line?: number };

export type PlanEntry = {
  content: string;
  priority: "high" | "medium" | "low";
  status: "pending" | "in_progress" | "completed";
};

export type AgentEvent =
  | { type: "user_message"; messageId?: string; text: string; meta?: Record<string, unknown> }
  | { type: "user_image"; messageId?: string; data: string; mimeType: string }
  | { type: "message_chunk"; messageId: string; text: string; meta?: Record<string, unknown> }
  | { type: "thought_chunk"; messageId: string; text: string }
  | {
      type: "tool_start";
      toolCallId: string;
      name: string;
      title: string;
      kind: ToolKind;
      locations: Location[];
      rawInput?: unknown;
      content?: CardContent[];
      status?: "pending" | "in_progress";
    }
  | { type: "tool_progress"; toolCallId: string; status?: "in_progress"; title?: string; content?: CardContent[] }
  | { type: "tool_end"; toolCallId: string; status: "completed" | "failed"; content?: CardContent[]; rawOutput?: unknown }
  | { type: "plan"; entries: PlanEntry[] }
  | { type: "usage"; used: number; size: number; cost?: number }
  | { type: "notice"; severity: "info" | "warning" | "error"; title: string; description?: string }
  | { type: "session_info"; title?: string | null; updatedAt: string; meta?: Record<string, unknown> }
  | { type: "compaction"; compactionId: string; status: "in_progress" | "completed" | "failed" | "cancelled"; error?: string }
  | { type: "compaction_summary_chunk"; compactionId: string; text: string }
  /** Nothing to show: the turn is still running (session/keepalive.ts). */
  | { type: "keepalive" };

/**
 * Where events go, in order. Streamed text may be merged and sent a little later; `flush` resolves
 * once everything emitted so far is on the wire (before a prompt's response, for instance).
 */
export interface EventSink {
  emit(event: AgentEvent): Promise<void>;
  flush(): Promise<void>;
}
