// Row shapes of state.db as hermes-acp reads and writes them, and their codecs.
import { z } from "zod";
import type { ChatMessage } from "../agent/messages.ts";

export type SessionRow = {
  id: string;
  source: string;
  model: string | null;
  modelConfig: Record<string, unknown>;
  title: string | null;
  parentSessionId: string | null;
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
  messageCount: number;
  toolCallCount: number;
  archived: boolean;
};
/** A picker entry: the chain's root row; `lastActive` and `tipId` cover its compression continuations. */
export type SessionListRow = SessionRow & { lastActive: number; tipId: string };
export type StoredMessage = { rowId: number; timestamp: number; message: ChatMessage };

export type NewSession = {
  id: string;
  source: string;
  model?: string | null;
  modelConfig?: Record<string, unknown>;
  parentSessionId?: string | null;
  title?: string | null;
  startedAt?: number;
};
export type SessionPatch = {
  /** undefined leaves the column alone; null clears it. */
  model?: string | null;
  /** Merged key by key into the stored object (a key set to undefined is removed). */
  modelConfig?: Record<string, unknown>;
  billingProvider?: string | null;
  billingBaseUrl?: string | null;
};
export type StoreOptions = { /** Epoch seconds; injectable for tests. */ clock?: () => number };

const jsonObject = z.record(z.string(), z.unknown());
export const text = z.string().nullable().catch(null);
const sessionRowSchema = z.object({
  id: z.string(),
  source: z.string(),
  model: text,
  model_config: text,
  title: text,
  parent_session_id: text,
  started_at: z.number().catch(0),
  ended_at: z.number().nullable().catch(null),
  end_reason: text,
  message_count: z.number().nullable().catch(0),
  tool_call_count: z.number().nullable().catch(0),
  archived: z.number().nullable().catch(0),
});

// Column → value when an older file lacks it (Hermes adds missing columns on its next open).
export const SESSION_COLUMNS: Record<string, string> = {
  id: "NULL", source: "NULL", model: "NULL", model_config: "NULL", title: "NULL", parent_session_id: "NULL",
  started_at: "0", ended_at: "NULL", end_reason: "NULL", message_count: "0", tool_call_count: "0", archived: "0",
};
export const MESSAGE_READ_COLUMNS = [
  "id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "timestamp", "finish_reason", "reasoning", "reasoning_content",
];
export const MESSAGE_WRITE_COLUMNS = [
  "session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "timestamp", "finish_reason", "reasoning", "reasoning_content",
];
export const DELEGATE_FROM = "CASE WHEN json_valid(%.model_config) THEN json_extract(%.model_config, '$._delegate_from') END";
export const BRANCHED_FROM = "CASE WHEN json_valid(%.model_config) THEN json_extract(%.model_config, '$._branched_from') END";

export function parseModelConfig(raw: string | null): Record<string, unknown> {
  if (raw == null || raw === "") return {};
  try {
    const parsed = jsonObject.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** Hermes stores an empty config as NULL; anything else must be valid JSON (its list queries json_extract it). */
export function encodeModelConfig(config: Record<string, unknown> | undefined): string | null {
  if (!config) return null;
  const json = JSON.stringify(config);
  return json === "{}" ? null : json;
}

export function toSessionRow(raw: unknown): SessionRow | null {
  const parsed = sessionRowSchema.safeParse(raw);
  if (!parsed.success) return null;
  const r = parsed.data;
  return {
    id: r.id,
    source: r.source,
    model: r.model,
    modelConfig: parseModelConfig(r.model_config),
    title: r.title,
    parentSessionId: r.parent_session_id,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    endReason: r.end_reason,
    messageCount: r.message_count ?? 0,
    toolCallCount: r.tool_call_count ?? 0,
    archived: (r.archived ?? 0) !== 0,
  };
}


const HEX = "0123456789abcdef";
const pad = (n: number) => String(n).padStart(2, "0");

/** Hermes' CLI/agent id format `YYYYMMDD_HHMMSS_<6 hex>` (local time, like datetime.now()). */
export function newHermesSessionId(now: Date = new Date()): string {
  const bytes = crypto.getRandomValues(new Uint8Array(3));
  const hex = Array.from(bytes, (b) => HEX[b >> 4]! + HEX[b & 15]!).join("");
  const date = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}`;
  const time = `${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  return `${date}_${time}_${hex}`;
}
