// Completion formatters (§12.5): result text + args → the card's text. Ported string for string from Hermes.
import {
  arg, collapseWhitespace, failureText, fencedText, first, getOr, isRecord, more, nonempty, parseJsonLoose, plural,
  pyStr, sliceChars, truncateText, truthy, type Args,
} from "./display-util.ts";

export type Formatter = (tool: string, result: string, args: Args) => string | undefined;
type StructuredFn = (tool: string, data: Args, args: Args) => string | undefined;

/** Parses the result as a JSON object for `fn`; non-objects give nothing (or the raw text with `textFallback`). */
function structured(fn: StructuredFn, textFallback = false): Formatter {
  return (tool, result, args) => {
    const data = parseJsonLoose(result);
    if (isRecord(data)) return fn(tool, data, args);
    return textFallback ? nonempty(result) : undefined;
  };
}

const num = (n: unknown) => (typeof n === "number" ? n.toLocaleString("en-US") : pyStr(n));

const TODO_ICONS: Record<string, string> = { completed: "✅", in_progress: "🔄", pending: "⏳", cancelled: "✗" };

const formatTodo: StructuredFn = (_tool, data) => {
  if (!Array.isArray(data.todos)) return undefined;
  const todos = data.todos.filter(isRecord);
  const byId = new Map(todos.map((t) => [truthy(t.id) ? pyStr(t.id) : "", t]));
  const depth = (item: Args): number => {
    let d = 0;
    const seen = new Set<string>();
    let cur = item;
    for (;;) {
      const parent = truthy(cur.parent) ? pyStr(cur.parent) : "";
      const next = byId.get(parent);
      if (!parent || !next || seen.has(parent)) break;
      seen.add(parent);
      d++;
      cur = next;
    }
    return Math.min(d, 4);
  };
  const lines = ["**Todo list**", ""];
  for (const item of todos) {
    const content = pyStr(first(item, ["content", "id"], "")).trim();
    if (!content) continue;
    const status = truthy(item.status) ? pyStr(item.status) : "pending";
    lines.push(`${"  ".repeat(depth(item))}- ${TODO_ICONS[status] ?? "•"} ${content}`);
  }
  const summary = data.summary;
  if (isRecord(summary) && Object.keys(summary).length > 0) {
    const cancelled = getOr(summary, "cancelled", 0);
    let progress = `${pyStr(getOr(summary, "completed", 0))} completed, ${pyStr(getOr(summary, "in_progress", 0))} in progress, `;
    progress += `${pyStr(getOr(summary, "pending", 0))} pending` + (truthy(cancelled) ? `, ${pyStr(cancelled)} cancelled` : "");
    lines.push("", `**Progress:** ${progress}`);
  }
  return lines.join("\n");
};

const formatReadFile: StructuredFn = (_tool, data, a) => {
  if (truthy(data.error) && !truthy(data.content)) return `Read failed: ${pyStr(data.error)}`;
  const content = data.content;
  if (typeof content !== "string") return undefined;
  const bits: string[] = [];
  if (truthy(a.offset)) bits.push(`from line ${pyStr(a.offset)}`);
  if (truthy(a.limit)) bits.push(`limit ${pyStr(a.limit)}`);
  let header = `Read ${pyStr(first(a, ["path"], first(data, ["path"], "file"))).trim()}`;
  if (bits.length) header += ` (${bits.join(", ")})`;
  if (data.total_lines !== undefined && data.total_lines !== null) header += ` — ${pyStr(data.total_lines)} total lines`;
  // Numbered `     1|text` lines would be parsed as Markdown tables by Zed: fence them.
  return truncateText(`${header}\n\n${fencedText(content)}`);
};

const formatSearchFiles: StructuredFn = (_tool, data) => {
  const { files, matches } = data;
  if (Array.isArray(files)) {
    const shown = Math.min(files.length, 20);
    const lines = ["File search results", `Found ${plural(getOr(data, "total_count", files.length), "file")}; showing ${shown}.`, ""];
    for (const p of files.slice(0, shown)) lines.push(`- ${pyStr(p)}`);
    if (truthy(data.truncated) || files.length > shown) {
      lines.push("", "Results truncated. Narrow the search, add path/file_glob, or use offset to page.");
    }
    return truncateText(lines.join("\n"), 7000);
  }
  if (!Array.isArray(matches)) return undefined;
  const shown = Math.min(matches.length, 12);
  const lines = ["Search results", `Found ${plural(getOr(data, "total_count", matches.length), "match", "es")}; showing ${shown}.`, ""];
  for (const m of matches.slice(0, shown)) {
    if (!isRecord(m)) {
      lines.push(`- ${pyStr(m)}`);
      continue;
    }
    const path = pyStr(first(m, ["path", "file", "filename"], "?"));
    const line = first(m, ["line", "line_number"], null);
    lines.push(truthy(line) ? `- ${path}:${pyStr(line)}` : `- ${path}`);
    const content = pyStr(first(m, ["content", "text"], "")).trim();
    if (content) lines.push(`  ${truncateText(collapseWhitespace(content), 300)}`);
  }
  if (truthy(data.truncated) || matches.length > shown) {
    lines.push("", "Results truncated. Narrow the search, add file_glob, or use offset to page.");
  }
  return truncateText(lines.join("\n"), 7000);
};

const formatExecuteCode: StructuredFn = (_tool, data) => {
  const exitCode = data.exit_code;
  const parts = [exitCode !== undefined && exitCode !== null ? `Exit code: ${pyStr(exitCode)}` : "Execution complete"];
  if (truthy(data.stdout_truncated)) {
    const { stdout_bytes_total: total, stdout_bytes_captured: captured, stdout_bytes_omitted: omitted } = data;
    if ([total, captured, omitted].every((v) => Number.isInteger(v))) {
      parts.push("", `Output truncated: captured ${num(captured)} of ${num(total)} bytes (${num(omitted)} omitted).`);
    } else parts.push("", "Output truncated.");
  }
  const sections: [string, string][] = [
    ["Warning:", truthy(data.warning) ? pyStr(data.warning).trim() : ""],
    ["Output:", truthy(data.output) ? pyStr(data.output) : ""],
    ["Error:", truthy(data.error) ? pyStr(data.error) : ""],
  ];
  for (const [label, value] of sections) if (value) parts.push("", label, value);
  return truncateText(parts.join("\n"));
};

const formatSkillView: StructuredFn = (_tool, data) => {
  if (data.success === false) return `Skill view failed: ${pyStr(getOr(data, "error", "unknown error"))}`;
  const content = truthy(data.content) ? pyStr(data.content) : "";
  const lines = [
    "**Skill loaded**",
    "",
    `- **Name:** \`${pyStr(first(data, ["name"], "skill"))}\``,
    `- **File:** \`${pyStr(first(data, ["file", "path"], "SKILL.md"))}\``,
  ];
  const description = truthy(data.description) ? pyStr(data.description).trim() : "";
  if (description) lines.push(`- **Description:** ${description}`);
  if (content) lines.push(`- **Content:** ${num([...content].length)} chars loaded into agent context`);
  const linked = data.linked_files;
  if (isRecord(linked) && Object.keys(linked).length > 0) {
    const count = Object.values(linked).reduce<number>((n, v) => n + (Array.isArray(v) ? v.length : 0), 0);
    lines.push(`- **Linked files:** ${count}`);
  }
  const headings = content
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter((s) => s.startsWith("#"))
    .map((s) => s.replace(/^#+/, "").trim())
    .filter(Boolean)
    .slice(0, 8);
  if (headings.length) lines.push("", "**Sections**", ...headings.map((h) => `- ${h}`));
  lines.push("", "_Full skill content is available to the agent but hidden here to keep ACP readable._");
  return lines.join("\n");
};

const formatSkillManage: StructuredFn = (_tool, data, a) => {
  const action = arg(a, ["action"], "manage");
  const name = pyStr(first(a, ["name"], first(data, ["name"], "skill"))).trim() || "skill";
  const filePath = pyStr(first(a, ["file_path"], first(data, ["file_path"], "SKILL.md"))).trim() || "SKILL.md";
  const status = data.success !== false ? "✅ Skill updated" : "✗ Skill update failed";
  const lines = [`**${status}**`, "", `- **Action:** \`${action}\``, `- **Skill:** \`${name}\``];
  if (action !== "delete") lines.push(`- **File:** \`${filePath}\``);
  const message = pyStr(first(data, ["message", "error"], "")).trim();
  if (message) lines.push(`- **Result:** ${message}`);
  const replacements = first(data, ["replacements", "replacement_count"], null);
  if (replacements !== null) lines.push(`- **Replacements:** ${pyStr(replacements)}`);
  const path = truthy(data.path) ? pyStr(data.path).trim() : "";
  if (path) lines.push(`- **Path:** \`${path}\``);
  return lines.join("\n");
};

const formatWebSearch: StructuredFn = (_tool, data) => {
  const web = isRecord(data.data) ? data.data.web : data.web;
  if (!Array.isArray(web)) return undefined;
  const lines = [`Web results: ${web.length}`];
  for (const item of web.slice(0, 10)) {
    if (!isRecord(item)) continue;
    const url = truthy(item.url) ? pyStr(item.url).trim() : "";
    lines.push(`• ${pyStr(first(item, ["title", "url"], "result")).trim()}` + (url ? ` — ${url}` : ""));
    const desc = truthy(item.description) ? pyStr(item.description).trim() : "";
    if (desc) lines.push(`  ${desc}`);
  }
  return truncateText(lines.join("\n"));
};

export const formatWebExtract: StructuredFn = (_tool, data) => {
  if (data.success === false && truthy(data.error)) return `Web extract failed: ${pyStr(data.error)}`;
  if (!Array.isArray(data.results)) return undefined;
  const failures: string[] = [];
  for (const item of data.results.slice(0, 10)) {
    const error = isRecord(item) && truthy(item.error) ? pyStr(item.error).trim() : "";
    if (!isRecord(item) || !error || error === "None" || error === "null") continue;
    const url = truthy(item.url) ? pyStr(item.url).trim() : "";
    const title = pyStr(truthy(item.title) ? item.title : url || "Untitled").trim();
    const where = url && url !== title ? ` — ${url}` : "";
    failures.push(`- ${title}${where}\n  Error: ${truncateText(error, 500)}`);
  }
  return failures.length ? [`Web extract failed for ${plural(failures.length, "URL")}`, ...failures].join("\n") : undefined;
};

const formatProcess: StructuredFn = (_tool, data, a) => {
  if (data.success === false && truthy(data.error)) return `Process error: ${pyStr(data.error)}`;
  const action = arg(a, ["action"], "process");
  if (Array.isArray(data.processes)) {
    const processes = data.processes;
    const lines = [`Processes: ${processes.length}`];
    for (const proc of processes.slice(0, 20)) {
      if (!isRecord(proc)) {
        lines.push(`- ${pyStr(proc)}`);
        continue;
      }
      const bits = [truthy(proc.status) ? pyStr(proc.status) : truthy(proc.exited) ? "exited" : "running"];
      if (proc.pid !== undefined && proc.pid !== null) bits.push(`pid ${pyStr(proc.pid)}`);
      if (proc.exit_code !== undefined && proc.exit_code !== null) bits.push(`exit ${pyStr(proc.exit_code)}`);
      const cmd = truthy(proc.command) ? pyStr(proc.command).trim() : "";
      const sid = pyStr(first(proc, ["session_id", "id"], "?"));
      lines.push(`- \`${sid}\` — ${bits.join(", ")}` + (cmd ? ` — ${sliceChars(cmd, 120)}` : ""));
    }
    return [...lines, ...more(processes, 20, " process(es)")].join("\n");
  }
  const status = pyStr(first(data, ["status", "state"], action)).trim();
  const sid = pyStr(first(data, ["session_id"], first(a, ["session_id"], ""))).trim();
  const lines = [`Process ${action}: ${status}` + (sid ? ` (\`${sid}\`)` : "")];
  const labels: [string, string][] = [["command", "Command"], ["pid", "PID"], ["exit_code", "Exit code"], ["returncode", "Exit code"], ["lines", "Lines"]];
  for (const [key, label] of labels) if (data[key] !== undefined && data[key] !== null) lines.push(`- **${label}:** ${pyStr(data[key])}`);
  const output = first(data, ["output", "new_output", "log", "stdout"], null);
  const error = first(data, ["error", "stderr"], null);
  if (truthy(output)) lines.push("", "Output:", truncateText(pyStr(output), 5000));
  if (truthy(error)) lines.push("", "Error:", truncateText(pyStr(error), 2000));
  if (truthy(data.message) && !truthy(output) && !truthy(error)) lines.push(pyStr(data.message));
  return truncateText(lines.join("\n"), 7000);
};

const DELEGATE_ICONS: Record<string, string> = { completed: "✅", failed: "✗", error: "✗", timeout: "⏱", interrupted: "⚠" };

const formatDelegate: StructuredFn = (_tool, data) => {
  const results = data.results;
  if (!Array.isArray(results)) return truthy(data.error) ? `Delegation failed: ${pyStr(data.error)}` : undefined;
  const total = data.total_duration_seconds;
  const lines = [`Delegation results: ${plural(results.length, "task")}` + (total !== undefined && total !== null ? ` in ${pyStr(total)}s` : "")];
  for (const item of results) {
    if (!isRecord(item)) {
      lines.push(`- ${pyStr(item)}`);
      continue;
    }
    const idx = item.task_index;
    const status = truthy(item.status) ? pyStr(item.status) : "unknown";
    const header = `${DELEGATE_ICONS[status] ?? "•"} Task ${Number.isInteger(idx) && typeof idx === "number" ? idx + 1 : "?"}: ${status}`;
    const bits: string[] = [];
    if (truthy(item.model)) bits.push(pyStr(item.model));
    if (truthy(item._child_role)) bits.push(`role=${pyStr(item._child_role)}`);
    if (item.duration_seconds !== undefined && item.duration_seconds !== null) bits.push(`${pyStr(item.duration_seconds)}s`);
    lines.push("", header + (bits.length ? ` (${bits.join(", ")})` : ""));
    const summary = truthy(item.summary) ? pyStr(item.summary).trim() : "";
    if (summary) lines.push(truncateText(summary, 1200));
    const err = truthy(item.error) ? pyStr(item.error).trim() : "";
    if (err) lines.push(`Error: ${truncateText(err, 800)}`);
    const trace = Array.isArray(item.tool_trace) ? item.tool_trace : [];
    const names = trace.filter(isRecord).map((t) => (truthy(t.tool) ? pyStr(t.tool) : "?"));
    if (names.length) lines.push(`Tools: ${names.slice(0, 12).join(", ")}` + (names.length > 12 ? ` (+${names.length - 12})` : ""));
  }
  return truncateText(lines.join("\n"), 8000);
};

const formatSessionSearch: StructuredFn = (_tool, data) => {
  if (data.success === false) return `Session search failed: ${pyStr(getOr(data, "error", "unknown error"))}`;
  const results = data.results;
  if (!Array.isArray(results)) return undefined;
  const recent = pyStr(first(data, ["mode"], "search")) === "recent";
  const lines = [recent ? "Recent sessions" : "Session search results" + (truthy(data.query) ? ` for \`${pyStr(data.query)}\`` : "")];
  if (results.length === 0) {
    lines.push(truthy(data.message) ? pyStr(data.message) : "No matching sessions found.");
    return lines.join("\n");
  }
  for (const item of results) {
    if (!isRecord(item)) continue;
    const title = pyStr(first(item, ["title", "when"], "Untitled session")).trim();
    const when = pyStr(first(item, ["last_active", "started_at", "when"])).trim();
    const count = item.message_count;
    const source = truthy(item.source) ? pyStr(item.source).trim() : "";
    const meta = [when, source, count !== undefined && count !== null ? `${pyStr(count)} msgs` : ""].filter(Boolean).join(", ");
    lines.push(`- **${title}** (\`${truthy(item.session_id) ? pyStr(item.session_id) : "?"}\`)` + (meta ? ` — ${meta}` : ""));
    const summary = pyStr(first(item, ["summary", "preview"], "")).trim();
    if (summary) lines.push(`  ${truncateText(collapseWhitespace(summary), 500)}`);
  }
  return truncateText(lines.join("\n"), 7000);
};

const formatMemory: StructuredFn = (_tool, data, a) => {
  const action = arg(a, ["action"], "memory");
  const target = pyStr(first(data, ["target"], first(a, ["target"], "memory")));
  if (data.success === false) {
    const lines = [`✗ Memory ${action} failed (${target})`, truthy(data.error) ? pyStr(data.error) : "unknown error"];
    if (Array.isArray(data.matches) && data.matches.length) {
      lines.push("Matches:", ...data.matches.slice(0, 5).map((m) => `- ${truncateText(pyStr(m), 160)}`));
    }
    return lines.join("\n");
  }
  const lines = [`✅ Memory ${action} saved (${target})`];
  if (truthy(data.message)) lines.push(pyStr(data.message));
  if (data.entry_count !== undefined && data.entry_count !== null) lines.push(`Entries: ${pyStr(data.entry_count)}`);
  if (truthy(data.usage)) lines.push(`Usage: ${pyStr(data.usage)}`);
  // Never dump stored memory into the card; only preview the new value.
  const previewText = arg(a, ["content", "old_text"]);
  if (previewText) lines.push(`Preview: ${truncateText(previewText, 300)}`);
  return lines.join("\n");
};

/** write_file / patch: the diff was already shown (start or approval card), so only the outcome. */
const formatEdit: Formatter = (tool, result, a) => {
  const data = parseJsonLoose(result);
  const path = pyStr(first(a, ["path"], "file")).trim();
  const done = `✅ ${tool} completed` + (path ? ` for \`${path}\`` : "");
  if (!isRecord(data)) {
    const t = nonempty(result);
    return t ? truncateText(t, 3000) : done;
  }
  const failed = failureText(data, `${tool} failed for ${path}`);
  if (failed) return failed;
  const lines = [done];
  const message = truthy(data.message) ? pyStr(data.message).trim() : "";
  if (message) lines.push(message);
  const replacements = first(data, ["replacements", "replacement_count"], null);
  if (replacements !== null) lines.push(`Replacements: ${pyStr(replacements)}`);
  if (Array.isArray(data.files_modified) && data.files_modified.length) {
    lines.push(`Files: ${data.files_modified.slice(0, 8).map((f) => `\`${pyStr(f)}\``).join(", ")}`);
  }
  return lines.join("\n");
};

const formatBrowser: StructuredFn = (tool, data) => {
  const failed = failureText(data, `${tool} failed`);
  if (failed) return failed;
  const images = tool === "browser_get_images" ? first(data, ["images", "data"], null) : null;
  if (Array.isArray(images)) {
    const lines = [`Images found: ${images.length}`];
    for (const img of images.slice(0, 12)) {
      if (!isRecord(img)) continue;
      const url = pyStr(first(img, ["url", "src"], "")).trim();
      const alt = truthy(img.alt) ? pyStr(img.alt).trim() : "";
      lines.push(`- ${alt || "image"}` + (url ? ` — ${url}` : ""));
    }
    return truncateText(lines.join("\n"), 5000);
  }
  const title = pyStr(first(data, ["title", "url", "status"], tool));
  const lines = [title];
  if (truthy(data.url) && data.url !== title) lines.push(pyStr(data.url));
  const text = pyStr(first(data, ["text", "content", "snapshot", "analysis", "message"])).trim();
  if (text) lines.push("", truncateText(text, 5000));
  return truncateText(lines.join("\n"), 7000);
};

const MEDIA_KEYS = ["file_path", "path", "url", "image_url", "job_id", "id", "status", "message", "next_run"];

const formatMediaOrCron: StructuredFn = (tool, data) => {
  const failed = failureText(data, `${tool} failed`);
  if (failed) return failed;
  return [`✅ ${tool} completed`, ...MEDIA_KEYS.filter((k) => truthy(data[k])).map((k) => `- **${k}:** ${pyStr(data[k])}`)].join("\n");
};

const browser = structured(formatBrowser, true);
const media = structured(formatMediaOrCron, true);

export const COMPLETION_FORMATTERS: Record<string, Formatter> = {
  todo: structured(formatTodo),
  read_file: structured(formatReadFile),
  write_file: formatEdit,
  patch: formatEdit,
  search_files: structured(formatSearchFiles),
  execute_code: structured(formatExecuteCode, true),
  process: structured(formatProcess, true),
  delegate_task: structured(formatDelegate),
  session_search: structured(formatSessionSearch),
  memory: structured(formatMemory),
  skill_view: structured(formatSkillView),
  skill_manage: structured(formatSkillManage),
  web_search: structured(formatWebSearch),
  browser_navigate: browser,
  browser_snapshot: browser,
  browser_vision: browser,
  browser_get_images: browser,
  vision_analyze: media,
  image_generate: media,
  cronjob: media,
};

export const formatWebExtractResult: Formatter = structured(formatWebExtract);
