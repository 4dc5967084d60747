import type { ToolKind } from "../agent/events.ts";

const KIND_GROUPS: [ToolKind, string[]][] = [
  ["read", ["read_file", "skill_view", "skills_list", "browser_snapshot", "browser_vision", "browser_get_images", "vision_analyze"]],
  ["edit", ["write_file", "patch", "skill_manage"]],
  ["search", ["search_files"]],
  [
    "execute",
    [
      "terminal", "process", "execute_code", "browser_click", "browser_type", "browser_scroll", "browser_press",
      "browser_back", "delegate_task", "image_generate", "text_to_speech",
    ],
  ],
  ["fetch", ["web_search", "web_extract", "browser_navigate"]],
  ["other", ["todo"]],
  ["think", ["_thinking"]],
];

/** Hermes tool name → ACP kind (TOOL_KIND_MAP); anything unlisted, MCP tools included, is `other`. */
export const TOOL_KIND_MAP: ReadonlyMap<string, ToolKind> = new Map(
  KIND_GROUPS.flatMap(([kind, names]) => names.map((name): [string, ToolKind] => [name, kind])),
);

/** Tools rendered by curated formatters: no rawInput/rawOutput, structured `{"error"}` counts as failure. */
export const POLISHED_TOOLS: ReadonlySet<string> = new Set([
  "todo", "memory", "session_search", "delegate_task",
  "read_file", "write_file", "patch", "search_files", "terminal", "process", "execute_code",
  "skill_view", "skills_list", "skill_manage", "web_search", "web_extract",
  "browser_navigate", "browser_click", "browser_type", "browser_press", "browser_scroll",
  "browser_back", "browser_snapshot", "browser_console", "browser_get_images", "browser_vision",
  "vision_analyze", "image_generate", "text_to_speech",
  "cronjob", "send_message", "clarify", "discord", "discord_admin",
  "ha_list_entities", "ha_get_state", "ha_list_services", "ha_call_service",
  "feishu_doc_read", "feishu_drive_list_comments", "feishu_drive_list_comment_replies",
  "feishu_drive_reply_comment", "feishu_drive_add_comment",
  "kanban_create", "kanban_show", "kanban_comment", "kanban_complete", "kanban_block", "kanban_link", "kanban_heartbeat",
  "yb_query_group_info", "yb_query_group_members", "yb_search_sticker", "yb_send_dm", "yb_send_sticker",
  "mixture_of_agents",
]);

export function toolKind(name: string): ToolKind {
  return TOOL_KIND_MAP.get(name) ?? "other";
}

export function isPolished(name: string): boolean {
  return POLISHED_TOOLS.has(name);
}
