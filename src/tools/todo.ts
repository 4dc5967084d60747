import { z } from "zod";
import type { CardContent } from "../agent/events.ts";
import { defineTool } from "./types.ts";
import { rawTodoSchema, todoResultJson, todoStoreOf } from "./todo-store.ts";
import description from "./todo.md" with { type: "text" };

const todoParams = z.object({
  todos: z.array(rawTodoSchema).optional().describe("Task items to write. Omit to read the current list."),
  merge: z
    .boolean()
    .optional()
    .describe("true: update items by id and append new ones. false (default): replace the whole list."),
});
export type TodoParams = z.infer<typeof todoParams>;

function startContent(args: TodoParams): CardContent[] {
  if (!Array.isArray(args.todos)) return [{ type: "text", text: "Reading todo list" }];
  const lines = args.todos.slice(0, 8).map((t) => `- ${t.status || "pending"}: ${t.content || (t.id ?? "")}`);
  if (args.todos.length > 8) lines.push(`... ${args.todos.length - 8} more`);
  return [{ type: "text", text: ["Updating todo list", "", ...lines].join("\n") }];
}

/** The session's task list (Hermes `todo`); the display layer turns results into ACP plan updates. */
export const todoTool = defineTool<TodoParams>({
  name: "todo",
  description,
  parameters: todoParams,
  kind: "other",
  title: (args) => {
    if (!Array.isArray(args.todos)) return "todo";
    const n = args.todos.length;
    return `todo (${n} ${n === 1 ? "item" : "items"})`;
  },
  locations: () => [],
  startContent,
  async run(args, ctx) {
    const store = todoStoreOf(ctx.state);
    const items = args.todos ? store.write(args.todos, args.merge ?? false) : store.read();
    return { output: todoResultJson(items) };
  },
});
