import { z } from "zod";
import { parseJsonLoose } from "./display-util.ts";
import type { ChatMessage } from "../agent/messages.ts";

export const TODO_STATUSES = ["pending", "in_progress", "completed", "cancelled"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];
export type TodoItem = { id: string; content: string; status: TodoStatus };
export type TodoSummary = { total: number; pending: number; in_progress: number; completed: number; cancelled: number };

export const MAX_TODO_ITEMS = 256;
export const MAX_TODO_CONTENT = 4000;
const TRUNCATED_MARK = "… [truncated]";

/** A todo as the model may send it: loose on purpose, normalised by `normalizeTodo`. */
export const rawTodoSchema = z
  .object({
    id: z.union([z.string(), z.number()]).nullish(),
    content: z.string().nullish(),
    status: z.string().nullish(),
  })
  .loose();
export type RawTodo = z.infer<typeof rawTodoSchema>;

function isStatus(s: string): s is TodoStatus {
  return (TODO_STATUSES as readonly string[]).includes(s);
}

function idOf(raw: RawTodo): string {
  return raw.id == null ? "?" : String(raw.id).trim() || "?";
}

function cleanContent(content: string | null | undefined): string {
  const text = (content ?? "").trim();
  if (!text) return "(no description)";
  return text.length > MAX_TODO_CONTENT ? text.slice(0, MAX_TODO_CONTENT - TRUNCATED_MARK.length) + TRUNCATED_MARK : text;
}

function cleanStatus(status: string | null | undefined): TodoStatus {
  const s = (status ?? "pending").trim().toLowerCase();
  return isStatus(s) ? s : "pending";
}

/** Hermes' validation: id defaults to "?", empty content to "(no description)", unknown status to pending. */
export function normalizeTodo(raw: RawTodo): TodoItem {
  return { id: idOf(raw), content: cleanContent(raw.content), status: cleanStatus(raw.status) };
}

/** Duplicate ids collapse to their last occurrence, which keeps its position. */
function dedupeById(items: RawTodo[]): RawTodo[] {
  const last = new Map<string, number>();
  items.forEach((t, i) => last.set(idOf(t), i));
  return items.filter((t, i) => last.get(idOf(t)) === i);
}

/**
 * The new list after a write. Replace: the incoming list, normalised. Merge: items with a known id
 * get their non-empty content/valid status updated in place; unknown ids are appended.
 */
export function applyTodoWrite(current: readonly TodoItem[], incoming: RawTodo[], merge: boolean): TodoItem[] {
  const updates = dedupeById(incoming);
  if (!merge) return updates.map(normalizeTodo).slice(0, MAX_TODO_ITEMS);
  const next = current.map((t) => ({ ...t }));
  const byId = new Map(next.map((t) => [t.id, t]));
  for (const raw of updates) {
    const existing = byId.get(idOf(raw));
    if (!existing) {
      const item = normalizeTodo(raw);
      next.push(item);
      byId.set(item.id, item);
      continue;
    }
    if (raw.content?.trim()) existing.content = cleanContent(raw.content);
    const status = raw.status?.trim().toLowerCase();
    if (status && isStatus(status)) existing.status = status;
  }
  return next.slice(0, MAX_TODO_ITEMS);
}

export function summarizeTodos(items: readonly TodoItem[]): TodoSummary {
  const summary: TodoSummary = { total: items.length, pending: 0, in_progress: 0, completed: 0, cancelled: 0 };
  for (const t of items) summary[t.status]++;
  return summary;
}

/** What the todo tool returns (and what the plan panel and history rebuild parse). */
export function todoResultJson(items: readonly TodoItem[]): string {
  return JSON.stringify({ todos: items, summary: summarizeTodos(items) });
}

/** The session's todo list, kept in `ToolContext.state` under "todo". */
export class TodoStore {
  private items: TodoItem[] = [];

  read(): TodoItem[] {
    return this.items.map((t) => ({ ...t }));
  }

  write(incoming: RawTodo[], merge: boolean): TodoItem[] {
    this.items = applyTodoWrite(this.items, incoming, merge);
    return this.read();
  }

  /** Sets the list wholesale, e.g. from `rebuildTodosFromHistory` when a session is restored. */
  replace(items: readonly TodoItem[]): void {
    this.items = items.slice(0, MAX_TODO_ITEMS).map((t) => ({ ...t }));
  }
}

export const TODO_STATE_KEY = "todo";

/** The session's store, created on first use. */
export function todoStoreOf(state: Map<string, unknown>): TodoStore {
  const existing = state.get(TODO_STATE_KEY);
  if (existing instanceof TodoStore) return existing;
  const store = new TodoStore();
  state.set(TODO_STATE_KEY, store);
  return store;
}

const todoResultSchema = z.object({ todos: z.array(z.unknown()) }).loose();

/** Parses the first JSON value of `text`, ignoring trailing text such as `\n\n[Hint: ...]`. */
export function parseLeadingJson(text: string): unknown {
  return parseJsonLoose(text.trim());
}

/** The list as of the last todo result in `messages` (empty if there is none), so a restored session regains it. */
export function rebuildTodosFromHistory(messages: readonly ChatMessage[]): TodoItem[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "tool" || m.tool_name !== "todo") continue;
    const parsed = todoResultSchema.safeParse(parseLeadingJson(m.content));
    if (!parsed.success) continue;
    const items = parsed.data.todos.flatMap((t) => {
      const raw = rawTodoSchema.safeParse(t);
      return raw.success ? [normalizeTodo(raw.data)] : [];
    });
    return items.slice(0, MAX_TODO_ITEMS);
  }
  return [];
}
