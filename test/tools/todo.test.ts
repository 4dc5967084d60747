import { describe, expect, test } from "bun:test";
import type { ChatMessage } from "../../src/agent/messages.ts";
import {
  applyTodoWrite,
  MAX_TODO_CONTENT,
  parseLeadingJson,
  rebuildTodosFromHistory,
  todoStoreOf,
  type TodoItem,
} from "../../src/tools/todo-store.ts";
import { todoTool, type TodoParams } from "../../src/tools/todo.ts";
import type { ApprovalOutcome, ToolContext } from "../../src/tools/types.ts";

const approve = async (): Promise<ApprovalOutcome> => ({ approved: true });
function context(state = new Map<string, unknown>()): ToolContext {
  return {
    sessionId: "s1",
    toolCallId: "tc-1",
    cwd: "/",
    signal: new AbortController().signal,
    fs: { readText: async () => "", writeText: async () => {} },
    shell: { run: async () => ({ output: "", exitCode: 0, timedOut: false, truncated: false }) },
    approver: { approveCommand: approve, approveEdit: approve },
    state,
    progress: async () => {},
  };
}

async function todo(ctx: ToolContext, args: TodoParams) {
  const parsed = todoTool.parameters.parse(args);
  const r = await todoTool.run(parsed as never, ctx);
  return JSON.parse(r.output) as { todos: TodoItem[]; summary: Record<string, number> };
}

describe("todo tool", () => {
  test("shape: kind, titles, start content", () => {
    expect(todoTool.kind).toBe("other");
    expect(todoTool.title({} as never)).toBe("todo");
    expect(todoTool.title({ todos: [{ id: "1" }] } as never)).toBe("todo (1 item)");
    expect(todoTool.title({ todos: [] } as never)).toBe("todo (0 items)");
    expect(todoTool.startContent?.({} as never)).toEqual([{ type: "text", text: "Reading todo list" }]);
    const many = Array.from({ length: 10 }, (_, i) => ({ id: String(i), content: `task ${i}`, status: i ? undefined : "in_progress" }));
    const text = todoTool.startContent?.({ todos: many } as never)?.[0];
    expect(text).toEqual({
      type: "text",
      text: ["Updating todo list", "", "- in_progress: task 0", ...[1, 2, 3, 4, 5, 6, 7].map((i) => `- pending: task ${i}`), "... 2 more"].join("\n"),
    });
  });

  test("read on an empty session, replace, then read back", async () => {
    const ctx = context();
    expect(await todo(ctx, {})).toEqual({ todos: [], summary: { total: 0, pending: 0, in_progress: 0, completed: 0, cancelled: 0 } });
    const written = await todo(ctx, {
      todos: [
        { id: "1", content: "Write tests", status: "in_progress" },
        { id: "2", content: "Ship", status: "pending" },
      ],
    });
    expect(written.summary).toEqual({ total: 2, pending: 1, in_progress: 1, completed: 0, cancelled: 0 });
    expect(await todo(ctx, {})).toEqual(written);
    const replaced = await todo(ctx, { todos: [{ id: "9", content: "Only this", status: "completed" }] });
    expect(replaced.todos).toEqual([{ id: "9", content: "Only this", status: "completed" }]);
  });

  test("merge updates by id (only sent fields) and appends new ids", async () => {
    const ctx = context();
    await todo(ctx, {
      todos: [
        { id: "1", content: "A", status: "in_progress" },
        { id: "2", content: "B", status: "pending" },
      ],
    });
    const merged = await todo(ctx, {
      merge: true,
      todos: [
        { id: "1", status: "completed" },
        { id: "2", content: "B2", status: "bogus" },
        { id: "3", content: "C" },
      ],
    });
    expect(merged.todos).toEqual([
      { id: "1", content: "A", status: "completed" },
      { id: "2", content: "B2", status: "pending" },
      { id: "3", content: "C", status: "pending" },
    ]);
  });

  test("state is per session (per ctx.state)", async () => {
    const a = context();
    const b = context();
    await todo(a, { todos: [{ id: "1", content: "A" }] });
    expect((await todo(b, {})).todos).toEqual([]);
    expect((await todo(a, {})).todos.length).toBe(1);
  });
});

describe("todo normalisation", () => {
  test("statuses, missing ids, empty content", () => {
    const items = applyTodoWrite(
      [],
      [
        { id: "a", content: "x", status: "IN_PROGRESS" },
        { id: "b", content: "x", status: " Cancelled " },
        { id: "c", content: "x", status: "done" },
        { id: "d", content: "x" },
        { content: "no id", status: "completed" },
        { id: 7, content: "   " },
      ],
      false,
    );
    expect(items).toEqual([
      { id: "a", content: "x", status: "in_progress" },
      { id: "b", content: "x", status: "cancelled" },
      { id: "c", content: "x", status: "pending" },
      { id: "d", content: "x", status: "pending" },
      { id: "?", content: "no id", status: "completed" },
      { id: "7", content: "(no description)", status: "pending" },
    ]);
  });

  test("duplicate ids collapse to the last occurrence", () => {
    const items = applyTodoWrite(
      [],
      [
        { id: "1", content: "first" },
        { id: "2", content: "two" },
        { id: "1", content: "again", status: "completed" },
      ],
      false,
    );
    expect(items).toEqual([
      { id: "2", content: "two", status: "pending" },
      { id: "1", content: "again", status: "completed" },
    ]);
  });

  test("content capped at 4000 chars with a marker; at most 256 items", () => {
    const [long] = applyTodoWrite([], [{ id: "1", content: "y".repeat(5000) }], false);
    expect(long?.content.length).toBe(MAX_TODO_CONTENT);
    expect(long?.content.endsWith("… [truncated]")).toBe(true);
    const many = applyTodoWrite([], Array.from({ length: 300 }, (_, i) => ({ id: String(i), content: "t" })), false);
    expect(many.length).toBe(256);
    expect(many.at(-1)?.id).toBe("255");
    const merged = applyTodoWrite(many, [{ id: "new", content: "t" }], true);
    expect(merged.length).toBe(256);
  });
});

describe("rebuildTodosFromHistory", () => {
  const toolMsg = (name: string, content: string): ChatMessage => ({ role: "tool", content, tool_call_id: "c", tool_name: name });

  test("takes the last todo result, tolerating trailing text", () => {
    const history: ChatMessage[] = [
      { role: "user", content: "plan it" },
      toolMsg("todo", JSON.stringify({ todos: [{ id: "1", content: "old", status: "pending" }], summary: {} })),
      toolMsg("todo", `${JSON.stringify({ todos: [{ id: "2", content: "new {x}", status: "in_progress" }], summary: {} })}\n\n[Hint: keep going]`),
      toolMsg("terminal", JSON.stringify({ todos: [{ id: "nope" }] })),
      toolMsg("todo", "Error executing tool 'todo': boom"),
      { role: "assistant", content: "ok" },
    ];
    expect(rebuildTodosFromHistory(history)).toEqual([{ id: "2", content: "new {x}", status: "in_progress" }]);
  });

  test("empty without a todo result; the store can be seeded with it", async () => {
    expect(rebuildTodosFromHistory([{ role: "user", content: "hi" }])).toEqual([]);
    const state = new Map<string, unknown>();
    todoStoreOf(state).replace(rebuildTodosFromHistory([toolMsg("todo", '{"todos":[{"id":"1","content":"kept","status":"completed"}]}')]));
    expect((await todo(context(state), {})).todos).toEqual([{ id: "1", content: "kept", status: "completed" }]);
  });

  test("parseLeadingJson", () => {
    expect(parseLeadingJson('{"a":"}"} trailing')).toEqual({ a: "}" });
    expect(parseLeadingJson('[1,2]\nmore')).toEqual([1, 2]);
    expect(parseLeadingJson("not json")).toBeUndefined();
    expect(parseLeadingJson('{"a":"\\"}"} x')).toEqual({ a: '"}' });
  });
});
