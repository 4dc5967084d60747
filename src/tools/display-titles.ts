import { arg, clip, getOr, isRecord, plural, pyStr, sliceChars, truthy, type Args } from "./display-util.ts";

function firstCodeLine(code: string): string {
  for (const line of code.split(/\r?\n|\r/)) if (line.trim()) return line.trim();
  return "";
}

function webExtractTitle(a: Args): string {
  const urls = getOr(a, "urls", []);
  if (!truthy(urls)) return "web extract";
  const list = Array.isArray(urls) ? urls : [urls];
  let head: unknown = list[0];
  if (isRecord(head)) head = head.url || head.href || "?";
  else if (typeof head !== "string") head = "?";
  return `extract: ${pyStr(head)}` + (list.length > 1 ? ` (+${list.length - 1})` : "");
}

function delegateTitle(a: Args): string {
  if (Array.isArray(a.tasks) && a.tasks.length > 0) return `delegate batch (${a.tasks.length} tasks)`;
  const goal = getOr(a, "goal", "");
  return truthy(goal) ? `delegate: ${clip(pyStr(goal), 60)}` : "delegate task";
}

function skillManageTitle(a: Args): string {
  const name = arg(a, ["name"], "?");
  const filePath = arg(a, ["file_path"]);
  return `skill ${arg(a, ["action"], "manage")}: ${clip(filePath ? `${name}/${filePath}` : name, 64)}`;
}

const either = (value: string, template: (v: string) => string, fallback: string) => (value ? template(value) : fallback);

const TITLES: Record<string, (a: Args) => string> = {
  terminal: (a) => `terminal: ${clip(pyStr(getOr(a, "command", "")), 80)}`,
  read_file: (a) => `read: ${pyStr(getOr(a, "path", "?"))}`,
  write_file: (a) => `write: ${pyStr(getOr(a, "path", "?"))}`,
  patch: (a) => `patch (${pyStr(getOr(a, "mode", "replace"))}): ${pyStr(getOr(a, "path", "?"))}`,
  search_files: (a) => `search: ${pyStr(getOr(a, "pattern", "?"))}`,
  web_search: (a) => `web search: ${pyStr(getOr(a, "query", "?"))}`,
  web_extract: webExtractTitle,
  process: (a) => either(arg(a, ["session_id"]), (s) => `process ${arg(a, ["action"], "manage")}: ${s}`, `process ${arg(a, ["action"], "manage")}`),
  delegate_task: delegateTitle,
  session_search: (a) => either(arg(a, ["query"]), (q) => `session search: ${q}`, "recent sessions"),
  memory: (a) => `memory ${arg(a, ["action"], "manage")}: ${arg(a, ["target"], "memory")}`,
  execute_code: (a) => either(clip(firstCodeLine(arg(a, ["code"])), 70), (l) => `python: ${l}`, "python code"),
  todo: (a) => (Array.isArray(a.todos) ? `todo (${plural(a.todos.length, "item")})` : "todo"),
  skill_view: (a) => `skill view (${arg(a, ["name"], "?")}${either(arg(a, ["file_path"]), (f) => `/${f}`, "")})`,
  skills_list: (a) => either(arg(a, ["category"]), (c) => `skills list (${c})`, "skills list"),
  skill_manage: skillManageTitle,
  browser_navigate: (a) => `navigate: ${pyStr(getOr(a, "url", "?"))}`,
  browser_snapshot: () => "browser snapshot",
  browser_vision: (a) => `browser vision: ${sliceChars(pyStr(getOr(a, "question", "?")), 50)}`,
  browser_get_images: () => "browser images",
  vision_analyze: (a) => `analyze image: ${sliceChars(pyStr(getOr(a, "question", "?")), 50)}`,
  image_generate: (a) => either(sliceChars(arg(a, ["prompt", "description"]), 50), (p) => `generate image: ${p}`, "generate image"),
  cronjob: (a) => either(arg(a, ["job_id", "id"]), (j) => `cron ${arg(a, ["action"], "manage")}: ${j}`, `cron ${arg(a, ["action"], "manage")}`),
};

/** The card title (§12.2); the tool name for anything without a dedicated title. */
export function titleFor(name: string, args: Args): string {
  const build = TITLES[name];
  return build ? build(args) : name;
}
