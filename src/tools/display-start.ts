import type { CardContent } from "../agent/events.ts";
import { isPolished } from "./display-kinds.ts";
import { arg, getOr, isRecord, more, pyStr, sliceChars, charLength, truncateText, truthy, type Args } from "./display-util.ts";

export type EditDiff = { path: string; oldText: string | null; newText: string };

type Built = string | CardContent | null;

const text = (t: string): CardContent => ({ type: "text", text: t });

function todoStart(a: Args): string {
  const items = a.todos;
  if (!Array.isArray(items)) return "Reading todo list";
  const lines = ["Updating todo list", ""];
  for (const i of items.slice(0, 8)) {
    if (isRecord(i)) lines.push(`- ${pyStr(getOr(i, "status", "pending"))}: ${pyStr(getOr(i, "content", getOr(i, "id", "")))}`);
  }
  return [...lines, ...more(items, 8)].join("\n");
}

function skillManageStart(a: Args): Built {
  const action = arg(a, ["action"], "manage");
  const name = arg(a, ["name"], "?");
  const filePath = arg(a, ["file_path"], "SKILL.md");
  const path = `skills/${name}/${filePath}`;
  if (action === "patch") {
    const old = truthy(a.old_string) ? pyStr(a.old_string) : "";
    return { type: "diff", path, oldText: old || null, newText: truthy(a.new_string) ? pyStr(a.new_string) : "" };
  }
  if (action === "edit" || action === "create") return { type: "diff", path, oldText: null, newText: truthy(a.content) ? pyStr(a.content) : "" };
  if (action === "write_file") {
    const target = truthy(a.file_path) ? pyStr(a.file_path) : "file";
    return { type: "diff", path: `skills/${name}/${target}`, oldText: null, newText: truthy(a.file_content) ? pyStr(a.file_content) : "" };
  }
  if (action === "delete" || action === "remove_file") return `Removing ${truthy(a.file_path) ? pyStr(a.file_path) : filePath} from skill '${name}'`;
  return `Running skill_manage action '${action}' on skill '${name}' (${filePath})`;
}

function executeCodeStart(a: Args): string {
  const code = arg(a, ["code"]);
  if (!code) return "Running Python helper script";
  const total = charLength(code);
  const preview = sliceChars(code, 1200) + (total > 1200 ? `\n... (${total} chars total, truncated)` : "");
  return `Running Python helper script:\n\n\`\`\`python\n${preview}\n\`\`\``;
}

function delegateStart(a: Args): string {
  const tasks = a.tasks;
  if (!(Array.isArray(tasks) && tasks.length > 0)) {
    const goal = truncateText(arg(a, ["goal"]), 800);
    return "Delegating task" + (goal ? `:\n${goal}` : "");
  }
  const lines = [`Delegating ${tasks.length} tasks`, ""];
  tasks.slice(0, 8).forEach((task, idx) => {
    if (!isRecord(task)) return;
    const role = arg(task, ["role"]);
    lines.push(`${idx + 1}. ${truncateText(arg(task, ["goal"]), 160)}${role ? ` (${role})` : ""}`);
  });
  return [...lines, ...more(tasks, 8)].join("\n");
}

const preview = (label: string, value: string, limit: number) => (value ? `\n${label}: ${truncateText(value, limit)}` : "");

/** Per-tool start content; `null` = the title and location already say it all (no content block). */
const START_BUILDERS: Record<string, ((a: Args) => Built) | null> = {
  patch: (a) => `Preparing ${pyStr(getOr(a, "mode", "replace"))} edit for ${truthy(a.path) ? pyStr(a.path) : "patch input"}. Approval prompt shows the diff.`,
  write_file: (a) => {
    const path = getOr(a, "path", "");
    return truthy(path) ? `Preparing write to ${pyStr(path)}. Approval prompt shows the diff.` : "Preparing file write. Approval prompt shows the diff.";
  },
  terminal: (a) => `$ ${pyStr(getOr(a, "command", ""))}`,
  read_file: null,
  search_files: (a) =>
    `Searching for '${pyStr(getOr(a, "pattern", ""))}' (${pyStr(getOr(a, "target", "content"))})` + (truthy(a.path) ? ` in ${pyStr(a.path)}` : ""),
  todo: todoStart,
  skill_view: (a) => `Loading skill '${arg(a, ["name"], "?")}' (${arg(a, ["file_path"], "SKILL.md")})`,
  skill_manage: skillManageStart,
  execute_code: executeCodeStart,
  web_search: (a) => {
    const q = arg(a, ["query"]);
    return q ? `Searching the web for: ${q}` : "Searching the web";
  },
  web_extract: null,
  process: (a) => {
    const sid = arg(a, ["session_id"]);
    return `Process action: ${arg(a, ["action"], "manage")}` + (sid ? `\nSession: ${sid}` : "") + preview("Input", arg(a, ["data"]), 500);
  },
  delegate_task: delegateStart,
  session_search: (a) => {
    const q = arg(a, ["query"]);
    return q ? `Searching past sessions for: ${q}` : "Loading recent sessions";
  },
  memory: (a) =>
    `Memory ${arg(a, ["action"], "manage")} (${arg(a, ["target"], "memory")})` + preview("Preview", arg(a, ["content", "old_text"]), 500),
};

export function argsJson(args: Args): string {
  return JSON.stringify(args, null, 2);
}

/** Start content (§11.3). `editDiff` = the proposal when the edit will be auto-approved. */
export function startContentFor(name: string, args: Args, editDiff?: EditDiff): CardContent[] | undefined {
  if ((name === "patch" || name === "write_file") && editDiff) {
    return [{ type: "diff", path: editDiff.path, oldText: editDiff.oldText, newText: editDiff.newText }];
  }
  if (name in START_BUILDERS) {
    const build = START_BUILDERS[name];
    const built = build ? build(args) : null;
    if (built === null) return undefined;
    return [typeof built === "string" ? text(built) : built];
  }
  if (isPolished(name)) return [text(truncateText(argsJson(args), 1200))];
  if (Object.keys(args).length === 0) return undefined;
  return [text(argsJson(args))];
}

/** Only the generic fallback (unknown tool with arguments) echoes the arguments as rawInput. */
export function rawInputFor(name: string, args: Args): Args | undefined {
  if (name in START_BUILDERS || isPolished(name) || Object.keys(args).length === 0) return undefined;
  return args;
}
