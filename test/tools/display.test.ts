import { describe, expect, test } from "bun:test";
import {
  coerceArgs, isFailedResult, planFromTodoResult, toolCompletion, toolKind, toolLocations, toolRawInput, toolStartContent,
  toolTitle, unifiedDiffToBlocks,
} from "../../src/tools/display.ts";
import type { CardContent, ToolKind } from "../../src/agent/events.ts";

function textOf(content: CardContent[] | undefined): string {
  const first = content?.[0];
  return first?.type === "text" ? first.text : "";
}

describe("toolKind", () => {
  const cases: [string, ToolKind][] = [
    ["read_file", "read"], ["terminal", "execute"], ["patch", "edit"], ["write_file", "edit"], ["web_search", "fetch"],
    ["execute_code", "execute"], ["todo", "other"], ["skill_view", "read"], ["browser_navigate", "fetch"],
    ["search_files", "search"], ["_thinking", "think"], ["mcp_ai_exa_exa_search", "other"], ["unknown_tool", "other"],
  ];
  for (const [name, kind] of cases) {
    test(`${name} → ${kind}`, () => {
      expect(toolKind(name)).toBe(kind);
    });
  }
});

describe("coerceArgs", () => {
  test("objects pass, JSON strings parse, bad strings become {raw}, other values {}", () => {
    expect(coerceArgs({ a: 1 })).toEqual({ a: 1 });
    expect(coerceArgs('{"path":"a.txt"}')).toEqual({ path: "a.txt" });
    expect(coerceArgs("not json")).toEqual({ raw: "not json" });
    expect(coerceArgs("[1,2]")).toEqual({});
    expect(coerceArgs(null)).toEqual({});
    expect(coerceArgs(7)).toEqual({});
  });
});

describe("toolTitle", () => {
  const long = "x".repeat(200);
  const cases: [string, unknown, string][] = [
    ["skill_view", { name: "github-pitfalls", file_path: "references/api.md" }, "skill view (github-pitfalls/references/api.md)"],
    ["skill_view", {}, "skill view (?)"],
    ["execute_code", { code: "\n\n  from hermes_tools import terminal\nprint(1)" }, "python: from hermes_tools import terminal"],
    ["execute_code", { code: "   " }, "python code"],
    ["skill_manage", { action: "patch", name: "hermes-agent-operations", file_path: "references/acp.md" }, "skill patch: hermes-agent-operations/references/acp.md"],
    ["terminal", { command: "ls -la" }, "terminal: ls -la"],
    ["terminal", { command: long }, `terminal: ${"x".repeat(77)}...`],
    ["read_file", { path: "a.txt" }, "read: a.txt"],
    ["read_file", {}, "read: ?"],
    ["write_file", { path: "b.txt" }, "write: b.txt"],
    ["patch", { path: "c.py" }, "patch (replace): c.py"],
    ["patch", { mode: "patch" }, "patch (patch): ?"],
    ["search_files", { pattern: "slash commands" }, "search: slash commands"],
    ["web_search", { query: "bun" }, "web search: bun"],
    ["web_extract", { urls: ["https://a", "https://b", "https://c"] }, "extract: https://a (+2)"],
    ["web_extract", {}, "web extract"],
    ["process", { action: "poll", session_id: "p1" }, "process poll: p1"],
    ["process", {}, "process manage"],
    ["delegate_task", { tasks: [{}, {}] }, "delegate batch (2 tasks)"],
    ["delegate_task", { goal: "g".repeat(70) }, `delegate: ${"g".repeat(57)}...`],
    ["delegate_task", {}, "delegate task"],
    ["session_search", { query: "acp" }, "session search: acp"],
    ["session_search", {}, "recent sessions"],
    ["memory", { action: "add" }, "memory add: memory"],
    ["todo", { todos: [{}] }, "todo (1 item)"],
    ["todo", { todos: [{}, {}] }, "todo (2 items)"],
    ["todo", {}, "todo"],
    ["skills_list", { category: "dev" }, "skills list (dev)"],
    ["browser_navigate", { url: "https://x.com" }, "navigate: https://x.com"],
    ["browser_vision", { question: "q".repeat(60) }, `browser vision: ${"q".repeat(50)}`],
    ["vision_analyze", { question: "what?" }, "analyze image: what?"],
    ["image_generate", { prompt: "a cat" }, "generate image: a cat"],
    ["cronjob", { action: "run", job_id: "j1" }, "cron run: j1"],
    ["my_plugin_tool", { a: 1 }, "my_plugin_tool"],
  ];
  for (const [name, args, title] of cases) {
    test(`${name} ${JSON.stringify(args).slice(0, 60)}`, () => {
      expect(toolTitle(name, args)).toBe(title);
    });
  }

  test("a 200-char command gives a title under 120 chars with ...", () => {
    const title = toolTitle("terminal", { command: long });
    expect(title.length).toBeLessThan(120);
    expect(title).toContain("...");
  });

  test("args as a JSON string (§23.1)", () => {
    expect(toolTitle("read_file", '{"path":"a.txt"}')).toBe("read: a.txt");
  });
});

describe("toolLocations", () => {
  test("path + offset → absolute path and line; no path → []", () => {
    expect(toolLocations("read_file", { path: "src/app.py", offset: 42 }, "/w")).toEqual([{ path: "/w/src/app.py", line: 42 }]);
    expect(toolLocations("patch", { path: "/abs/x.py", line: 3 }, "/w")).toEqual([{ path: "/abs/x.py", line: 3 }]);
    expect(toolLocations("write_file", { path: "a.txt" }, "/w")).toEqual([{ path: "/w/a.txt" }]);
    expect(toolLocations("terminal", { command: "ls" }, "/w")).toEqual([]);
    expect(toolLocations("read_file", '{"path":"s.txt"}', "/w")).toEqual([{ path: "/w/s.txt" }]);
  });
});

describe("toolStartContent", () => {
  test("patch / write_file without auto-approval point at the approval prompt", () => {
    expect(textOf(toolStartContent("patch", { path: "a.py" }))).toBe("Preparing replace edit for a.py. Approval prompt shows the diff.");
    expect(textOf(toolStartContent("patch", {}))).toBe("Preparing replace edit for patch input. Approval prompt shows the diff.");
    expect(textOf(toolStartContent("write_file", { path: "b" }))).toBe("Preparing write to b. Approval prompt shows the diff.");
    expect(textOf(toolStartContent("write_file", {}))).toBe("Preparing file write. Approval prompt shows the diff.");
  });

  test("auto-approved patch start is exactly one diff block from the proposal", () => {
    const editDiff = { path: "/w/a.py", oldText: "old\n", newText: "new\n" };
    expect(toolStartContent("patch", { path: "a.py" }, { editDiff })).toEqual([{ type: "diff", ...editDiff }]);
  });

  test("read_file and web_extract starts have no content and no rawInput", () => {
    expect(toolStartContent("read_file", { path: "a" })).toBeUndefined();
    expect(toolStartContent("web_extract", { urls: ["u"] })).toBeUndefined();
    expect(toolRawInput("read_file", { path: "a" })).toBeUndefined();
    expect(toolRawInput("web_extract", { urls: ["u"] })).toBeUndefined();
  });

  test("polished tools without a builder show pretty JSON (≤1200 chars)", () => {
    expect(textOf(toolStartContent("browser_navigate", { url: "https://x.com" }))).toBe('{\n  "url": "https://x.com"\n}');
    expect(textOf(toolStartContent("browser_snapshot", {}))).toBe("{}");
    expect(textOf(toolStartContent("browser_type", { text: "y".repeat(2000) })).length).toBeLessThan(1200 + 60);
  });

  test("execute_code shows a python fence", () => {
    const t = textOf(toolStartContent("execute_code", { code: "print('hi')" }));
    expect(t).toBe("Running Python helper script:\n\n```python\nprint('hi')\n```");
    expect(textOf(toolStartContent("execute_code", {}))).toBe("Running Python helper script");
  });

  test("skill_manage patch start is a diff at skills/<name>/<file>", () => {
    expect(toolStartContent("skill_manage", { action: "patch", name: "s", file_path: "r.md", old_string: "a", new_string: "b" })).toEqual([
      { type: "diff", path: "skills/s/r.md", oldText: "a", newText: "b" },
    ]);
    expect(textOf(toolStartContent("skill_manage", { action: "delete", name: "s" }))).toBe("Removing SKILL.md from skill 's'");
  });

  test("terminal, search, todo, process, memory, web_search, delegate", () => {
    expect(textOf(toolStartContent("terminal", { command: "rm -rf /" }))).toBe("$ rm -rf /");
    expect(textOf(toolStartContent("search_files", { pattern: "x", path: "src" }))).toBe("Searching for 'x' (content) in src");
    expect(textOf(toolStartContent("search_files", { pattern: "*.ts", target: "files" }))).toBe("Searching for '*.ts' (files)");
    const todos = Array.from({ length: 10 }, (_, i) => ({ id: `${i}`, content: `task ${i}`, status: i ? "pending" : "in_progress" }));
    const todoText = textOf(toolStartContent("todo", { todos }));
    expect(todoText.split("\n").slice(0, 3)).toEqual(["Updating todo list", "", "- in_progress: task 0"]);
    expect(todoText.split("\n").at(-1)).toBe("... 2 more");
    expect(textOf(toolStartContent("todo", {}))).toBe("Reading todo list");
    expect(textOf(toolStartContent("process", { action: "write", session_id: "p1", data: "yes" }))).toBe("Process action: write\nSession: p1\nInput: yes");
    expect(textOf(toolStartContent("memory", { action: "add", content: "likes tea" }))).toBe("Memory add (memory)\nPreview: likes tea");
    expect(textOf(toolStartContent("web_search", { query: "q" }))).toBe("Searching the web for: q");
    expect(textOf(toolStartContent("delegate_task", { goal: "do it" }))).toBe("Delegating task:\ndo it");
    expect(textOf(toolStartContent("delegate_task", { tasks: [{ goal: "a", role: "r" }, { goal: "b" }] }))).toBe("Delegating 2 tasks\n\n1. a (r)\n2. b");
  });

  test("unknown tools echo their args (and only they set rawInput); empty args → nothing", () => {
    expect(textOf(toolStartContent("mcp_x_y", { a: 1 }))).toBe('{\n  "a": 1\n}');
    expect(toolRawInput("mcp_x_y", { a: 1 })).toEqual({ a: 1 });
    expect(toolStartContent("mcp_x_y", {})).toBeUndefined();
    expect(toolRawInput("mcp_x_y", {})).toBeUndefined();
    expect(toolRawInput("terminal", { command: "ls" })).toBeUndefined();
  });
});

describe("failure detection", () => {
  const cases: [string, string, boolean][] = [
    ["skill_manage", '{"success": false, "error": "x"}', true],
    ["my_plugin", '{"ok": false}', true],
    ["terminal", '{"output": "", "exit_code": 2}', true],
    ["my_plugin", '{"returncode": 2}', true],
    ["patch", "Error executing tool 'patch': boom", true],
    ["terminal", "tests failed...", false],
    ["terminal", "Error: pytest collected 0 items", false],
    ["read_file", '{"error":"File not found"}', true],
    ["read_file", '{"error":"partial","content":"x"}', false],
    ["my_plugin", '{"error":"diagnostic"}', false],
    ["terminal", '{"exit_code": 0}', false],
    ["todo", '{"success": false}\n\n[Hint: retry]', true],
  ];
  for (const [name, result, failed] of cases) {
    test(`${name} ${JSON.stringify(result.slice(0, 40))} → ${failed ? "failed" : "completed"}`, () => {
      expect(isFailedResult(name, result)).toBe(failed);
      expect(toolCompletion(name, {}, result).status).toBe(failed ? "failed" : "completed");
    });
  }
  test("the executor's own verdict wins", () => {
    expect(toolCompletion("terminal", {}, "fine", { failed: true }).status).toBe("failed");
  });
});

describe("toolCompletion formatters", () => {
  test("terminal text output: completed, no rawOutput", () => {
    const c = toolCompletion("terminal", { command: "ls" }, "a\nb\n");
    expect(c).toEqual({ status: "completed", content: [{ type: "text", text: "a\nb\n" }] });
  });

  test("todo checklist with progress", () => {
    const result = JSON.stringify({
      todos: [
        { id: "1", content: "Inspect ACP", status: "completed" },
        { id: "2", content: "Patch renderers", status: "in_progress" },
      ],
      summary: { total: 2, pending: 0, in_progress: 1, completed: 1, cancelled: 0 },
    });
    const t = textOf(toolCompletion("todo", {}, result).content);
    expect(t).toContain("✅ Inspect ACP");
    expect(t).toContain("- 🔄 Patch renderers");
    expect(t).toContain("**Progress:** 1 completed, 1 in progress, 0 pending");
    expect(t.startsWith("**Todo list**\n\n")).toBe(true);
  });

  test("skill_view hides the body but lists headings and the note", () => {
    const result = JSON.stringify({ success: true, name: "s", content: "# Intro\nsecret body text\n## Usage\nmore" });
    const t = textOf(toolCompletion("skill_view", {}, result).content);
    expect(t).not.toContain("secret body text");
    expect(t).toContain("**Sections**\n- Intro\n- Usage");
    expect(t).toContain("_Full skill content is available to the agent but hidden here to keep ACP readable._");
  });

  test("read_file: header and a fenced block of the numbered lines, from string args too", () => {
    const result = JSON.stringify({ content: "     1|# Title\n     2|```js", total_lines: 2, file_size: 10, truncated: false });
    for (const args of [{ path: "README.md", offset: 1, limit: 20 }, '{"path":"README.md","offset":1,"limit":20}']) {
      const t = textOf(toolCompletion("read_file", args, result).content);
      expect(t).toBe("Read README.md (from line 1, limit 20) — 2 total lines\n\n````\n     1|# Title\n     2|```js\n````");
    }
    expect(textOf(toolCompletion("read_file", {}, '{"error":"File not found: x"}').content)).toBe("Read failed: File not found: x");
  });

  test("10000-char non-JSON read_file output is truncated under 6000 chars", () => {
    const t = textOf(toolCompletion("read_file", { path: "a" }, "z".repeat(10000)).content);
    expect(t.length).toBeLessThan(6000);
    expect(t).toContain("truncated");
    expect(t).toEndWith("\n... (10000 chars total, truncated)");
  });

  test("search_files: replayed content names the match (item 15) and file lists", () => {
    const result = JSON.stringify({ total_count: 1, matches: [{ path: "cli.py", line: 42, content: "  def   slash_commands():" }], truncated: false });
    const t = textOf(toolCompletion("search_files", '{"pattern":"slash commands"}', result).content);
    expect(t).toBe("Search results\nFound 1 match; showing 1.\n\n- cli.py:42\n  def slash_commands():");
    const files = JSON.stringify({ total_count: 30, files: ["a.ts", "b.ts"], truncated: true });
    expect(textOf(toolCompletion("search_files", {}, files).content)).toBe(
      "File search results\nFound 30 files; showing 2.\n\n- a.ts\n- b.ts\n\nResults truncated. Narrow the search, add path/file_glob, or use offset to page.",
    );
  });

  test("web_extract: success → no content; per-URL errors listed", () => {
    expect(toolCompletion("web_extract", {}, JSON.stringify({ results: [{ url: "https://a", content: "x" }] })).content).toEqual([]);
    const t = textOf(toolCompletion("web_extract", {}, JSON.stringify({ results: [{ url: "https://a", error: "403 Forbidden" }] })).content);
    expect(t).toBe("Web extract failed for 1 URL\n- https://a\n  Error: 403 Forbidden");
  });

  test("unknown JSON results become Markdown bullets, no raw JSON, no rawOutput", () => {
    const c = toolCompletion("mcp_stats", {}, JSON.stringify({ active: 12, capabilities: ["a", "b"], ok: true, nested: { deep: { deeper: 1 } } }));
    const t = textOf(c.content);
    expect(t).toContain("**active:** 12");
    expect(t).toContain("**capabilities:** 2 items");
    expect(t).toContain("**ok:** True");
    expect(t).not.toContain('"active"');
    expect(c.rawOutput).toBeUndefined();
    expect(textOf(toolCompletion("mcp_list", {}, "[1, 2]").content)).toBe("mcp_list: 2 items\n- 1\n- 2");
  });

  test("unknown tool with plain text keeps it as rawOutput", () => {
    expect(toolCompletion("mcp_echo", {}, "hello")).toEqual({ status: "completed", content: [{ type: "text", text: "hello" }], rawOutput: "hello" });
  });

  test("patch / write_file: one line outcome, the diff is not repeated", () => {
    const result = JSON.stringify({ success: true, diff: "--- a/README.md\n+++ b/README.md\n@@\n-a\n+b\n", files_modified: ["README.md"] });
    const c = toolCompletion("patch", { path: "README.md" }, result);
    expect(c.content).toEqual([{ type: "text", text: "✅ patch completed for `README.md`\nFiles: `README.md`" }]);
    expect(textOf(toolCompletion("write_file", { path: "x" }, '{"success":false,"error":"Edit approval denied"}').content)).toBe(
      "write_file failed for x: Edit approval denied",
    );
  });

  test("execute_code and process", () => {
    expect(textOf(toolCompletion("execute_code", {}, JSON.stringify({ exit_code: 0, output: "hi" })).content)).toBe("Exit code: 0\n\nOutput:\nhi");
    const procs = JSON.stringify({ processes: [{ session_id: "p1", status: "running", pid: 7, command: "sleep 9" }] });
    expect(textOf(toolCompletion("process", { action: "list" }, procs).content)).toBe("Processes: 1\n- `p1` — running, pid 7 — sleep 9");
  });
});

describe("planFromTodoResult", () => {
  test("maps statuses, cancelled → completed with a prefix, priority medium, trailing text tolerated", () => {
    const result =
      JSON.stringify({
        todos: [
          { id: "1", content: "Inspect ACP", status: "completed" },
          { id: "2", content: "Patch renderer", status: "in_progress" },
          { id: "3", content: "Drop stale task", status: "cancelled" },
          { id: "4", content: "", status: "weird" },
          { id: "", content: "" },
        ],
      }) + "\n\n[Hint: keep going]";
    expect(planFromTodoResult(result)).toEqual([
      { content: "Inspect ACP", priority: "medium", status: "completed" },
      { content: "Patch renderer", priority: "medium", status: "in_progress" },
      { content: "[cancelled] Drop stale task", priority: "medium", status: "completed" },
      { content: "4", priority: "medium", status: "pending" },
    ]);
  });
  test("empty list clears; no todos → null", () => {
    expect(planFromTodoResult('{"todos":[]}')).toEqual([]);
    expect(planFromTodoResult('{"other":1}')).toBeNull();
    expect(planFromTodoResult("plain text")).toBeNull();
  });
});

describe("unifiedDiffToBlocks", () => {
  test("one block per file, prefixes stripped, new files have null oldText", () => {
    const diff = "--- a/x.md\n+++ b/x.md\n@@ -1 +1 @@\n keep\n-old\n+new\n--- /dev/null\n+++ b/new.md\n@@\n+hello\n";
    expect(unifiedDiffToBlocks(diff)).toEqual([
      { type: "diff", path: "x.md", oldText: "keep\nold", newText: "keep\nnew" },
      { type: "diff", path: "new.md", oldText: null, newText: "hello" },
    ]);
  });
});
