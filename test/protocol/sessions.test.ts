import { afterEach, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { fakeProviderConfig, INIT, startHarness, tempDir, type Harness } from "../helpers/harness.ts";
import type { Json } from "../helpers/rpc-peer.ts";

const CONFIG = fakeProviderConfig("http://127.0.0.1:9/v1");
let harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses) await h.close();
  harnesses = [];
});

async function start(opts: Parameters<typeof startHarness>[0] = {}) {
  const h = await startHarness({ config: CONFIG, ...opts });
  harnesses.push(h);
  await h.peer.call("initialize", INIT);
  return h;
}

async function newSession(h: Harness, cwd = tempDir()): Promise<string> {
  const r = await h.peer.call("session/new", { cwd, mcpServers: [] });
  return r.sessionId as string;
}

describe("session lifecycle", () => {
  test("session/new returns modes and config options; commands and usage come after the response", async () => {
    const h = await start();
    const cwd = tempDir();
    const r = await h.peer.call("session/new", { cwd, mcpServers: [] });
    expect(typeof r.sessionId).toBe("string");
    expect(r.modes).toMatchObject({ currentModeId: "default" });
    expect((r.modes as { availableModes: { id: string }[] }).availableModes.map((m) => m.id)).toEqual(["default", "accept_edits", "dont_ask"]);
    const options = r.configOptions as Json[];
    expect(options.map((o) => o.category)).toEqual(["mode", "model", "thought_level"]);
    expect(options[1]).toMatchObject({ currentValue: "custom:fake-model" });
    expect((r._meta as Json).hermes).toMatchObject({ sessionProvenance: { acpSessionId: r.sessionId, sessionKind: "root", compressionDepth: 0 } });

    const cmd = await h.peer.waitFor((m) => m.method === "session/update" && (m.params as Json).update !== undefined && ((m.params as Json).update as Json).sessionUpdate === "available_commands_update");
    const responseIndex = h.peer.received.findIndex((m) => "result" in m && (m.result as Json).sessionId === r.sessionId);
    expect(h.peer.received.indexOf(cmd)).toBeGreaterThan(responseIndex);
    const names = (((cmd.params as Json).update as Json).availableCommands as { name: string }[]).map((c) => c.name);
    expect(names).toEqual(["help", "model", "tools", "context", "reset", "compress", "steer", "queue", "version"]);
    await h.peer.waitFor((m) => ((m.params as Json | undefined)?.update as Json | undefined)?.sessionUpdate === "usage_update");
  });

  test("a broken config.yaml gives a clear error at session/new and the process lives on", async () => {
    const h = await start({ config: "model: [unclosed\n  - : :" });
    const r = await h.peer.request("session/new", { cwd: tempDir(), mcpServers: [] });
    expect(r.error).toBeDefined();
    expect(r.error?.message).toContain("config.yaml");
    writeFileSync(join(h.home, "config.yaml"), CONFIG);
    expect((await h.peer.request("session/new", { cwd: tempDir(), mcpServers: [] })).result?.sessionId).toBeDefined();
  });

  test("no provider credential: session/new asks for authentication with an actionable message", async () => {
    const h = await start({ config: "" });
    const r = await h.peer.request("session/new", { cwd: tempDir(), mcpServers: [] });
    expect(r.error?.code).toBe(-32000);
    expect(r.error?.message).toContain("hermes-acp --setup");
  });

  test("an unknown session id is a JSON-RPC error on every method, never {}", async () => {
    const h = await start();
    const id = "no-such-session";
    const calls: [string, Json][] = [
      ["session/load", { sessionId: id, cwd: "/tmp", mcpServers: [] }],
      ["session/resume", { sessionId: id, cwd: "/tmp" }],
      ["session/fork", { sessionId: id, cwd: "/tmp" }],
      ["session/prompt", { sessionId: id, prompt: [{ type: "text", text: "hi" }] }],
      ["session/set_mode", { sessionId: id, modeId: "default" }],
      ["session/set_config_option", { sessionId: id, configId: "mode", value: "default" }],
      ["session/close", { sessionId: id }],
    ];
    for (const [method, params] of calls) {
      const r = await h.peer.request(method, params);
      expect({ method, code: r.error?.code }).toEqual({ method, code: -32002 });
    }
    // Deleting an unknown session succeeds silently (acp-protocol §4.7).
    expect((await h.peer.request("session/delete", { sessionId: id })).result).toEqual({});
    h.peer.notify("session/cancel", { sessionId: id });
    expect((await h.peer.request("session/list", {})).result).toBeDefined();
  });

  test("set_mode sends current_mode_update, validates the mode, and the mode survives a restart", async () => {
    const h = await start();
    const sessionId = await newSession(h);
    expect((await h.peer.request("session/set_mode", { sessionId, modeId: "bogus" })).error?.code).toBe(-32602);
    await h.peer.call("session/set_mode", { sessionId, modeId: "accept_edits" });
    await h.peer.waitFor((m) => ((m.params as Json | undefined)?.update as Json | undefined)?.currentModeId === "accept_edits");
    const r = await h.peer.call("session/set_config_option", { sessionId, configId: "mode", value: "dont_ask" });
    expect((r.configOptions as Json[])[0]).toMatchObject({ id: "mode", currentValue: "dont_ask" });
    expect((r.configOptions as Json[]).length).toBe(3);
    expect((await h.peer.request("session/set_config_option", { sessionId, configId: "nope", value: "x" })).error?.code).toBe(-32602);

    const h2 = await start({ home: h.home });
    const loaded = await h2.peer.call("session/resume", { sessionId, cwd: tempDir() });
    expect((loaded.modes as Json).currentModeId).toBe("dont_ask");
  });

  test("session/load replays the stored history before it responds; resume does not replay", async () => {
    const h = await start();
    const cwd = tempDir();
    const sessionId = await newSession(h, cwd);
    h.services.store().appendMessages(sessionId, [
      { role: "user", content: "find the slash commands" },
      {
        role: "assistant",
        content: "Let me search.",
        reasoning_content: "I should search.",
        tool_calls: [{ id: "call_search_1", type: "function", function: { name: "search_files", arguments: '{"pattern":"slash commands"}' } }],
      },
      { role: "tool", tool_call_id: "call_search_1", tool_name: "search_files", content: JSON.stringify({ total_count: 1, matches: [{ path: "cli.py", line: 42, content: "def slash()" }] }) },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_todo_1", type: "function", function: { name: "todo", arguments: '{"todos":[{"id":"1","content":"Ship it","status":"in_progress"}]}' } }],
      },
      { role: "tool", tool_call_id: "call_todo_1", tool_name: "todo", content: JSON.stringify({ todos: [{ id: "1", content: "Ship it", status: "in_progress" }], summary: { total: 1, pending: 0, in_progress: 1, completed: 0, cancelled: 0 } }) },
      { role: "assistant", content: "Found it in cli.py." },
    ]);

    const h2 = await start({ home: h.home });
    const response = h2.peer.request("session/load", { sessionId, cwd, mcpServers: [] });
    const r = await response;
    expect(r.result).toBeDefined();
    const responseIndex = h2.peer.received.findIndex((m) => m.id !== undefined && "result" in m && m.id === (r as Json).id);
    const replay = h2.peer.received.slice(0, responseIndex).filter((m) => m.method === "session/update").map((m) => ((m.params as Json).update as Json));
    expect(replay.map((u) => u.sessionUpdate)).toEqual([
      "user_message_chunk",
      "agent_thought_chunk",
      "agent_message_chunk",
      "tool_call",
      "tool_call_update",
      "tool_call",
      "tool_call_update",
      "plan",
      "agent_message_chunk",
    ]);
    expect(replay[3]).toMatchObject({ toolCallId: "call_search_1", title: "search: slash commands", kind: "search" });
    expect(JSON.stringify(replay[4])).toContain("cli.py:42");
    expect(replay[7]).toEqual({ sessionUpdate: "plan", entries: [{ content: "Ship it", priority: "medium", status: "in_progress" }] });

    const h3 = await start({ home: h.home });
    await h3.peer.call("session/resume", { sessionId, cwd });
    await Bun.sleep(50);
    expect(h3.peer.updates(sessionId).filter((u) => u.sessionUpdate === "user_message_chunk")).toHaveLength(0);
  });

  test("fork copies history and mode into a new session; close ends a session for prompts", async () => {
    const h = await start();
    const sessionId = await newSession(h);
    await h.peer.call("session/set_mode", { sessionId, modeId: "accept_edits" });
    h.services.store().appendMessages(sessionId, [{ role: "user", content: "hello" }]);
    const h2 = await start({ home: h.home });
    await h2.peer.call("session/resume", { sessionId, cwd: tempDir() });
    const fork = await h2.peer.call("session/fork", { sessionId, cwd: tempDir() });
    expect(fork.sessionId).not.toBe(sessionId);
    expect((fork.modes as Json).currentModeId).toBe("accept_edits");
    expect(h2.services.store().loadMessages(fork.sessionId as string).map((m) => m.message.content)).toEqual(["hello"]);

    await h2.peer.call("session/close", { sessionId });
    const r = await h2.peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(r.error?.code).toBe(-32002);
  });

  test("session/list: titles, cwd filter with Windows/WSL normalisation, pagination, invalid cursor, delete", async () => {
    const h = await start();
    const store = h.services.store();
    for (let i = 0; i < 55; i++) {
      const id = `s-${String(i).padStart(2, "0")}`;
      store.createSession({ id, source: "acp", modelConfig: { cwd: i % 2 ? "/mnt/e/Projects/AI/x" : "/home/u/p" }, startedAt: 1_700_000_000 + i });
      store.appendMessages(id, [{ role: "user", content: `question ${i}` }]);
      store.setTitle(id, `Title ${i}`);
    }
    store.createSession({ id: "cli-1", source: "cli", modelConfig: {} });
    store.appendMessages("cli-1", [{ role: "user", content: "cli" }]);

    const first = await h.peer.call("session/list", {});
    const sessions = first.sessions as Json[];
    expect(sessions).toHaveLength(50);
    expect(sessions.some((s) => s.sessionId === "cli-1")).toBe(false);
    expect(typeof first.nextCursor).toBe("string");
    const second = await h.peer.call("session/list", { cursor: first.nextCursor });
    expect((second.sessions as Json[]).length).toBe(5);
    expect(second.nextCursor).toBeUndefined();
    expect((await h.peer.request("session/list", { cursor: "garbage" })).error?.code).toBe(-32602);

    const filtered = await h.peer.call("session/list", { cwd: "E:\\Projects\\AI\\x" });
    expect((filtered.sessions as Json[]).length).toBe(27);
    expect((filtered.sessions as Json[])[0]).toMatchObject({ cwd: "/mnt/e/Projects/AI/x" });
    expect(String((filtered.sessions as Json[])[0]!.title)).toStartWith("Title");

    await h.peer.call("session/delete", { sessionId: "s-01" });
    const after = await h.peer.call("session/list", { cwd: "/mnt/e/Projects/AI/x" });
    expect((after.sessions as Json[]).some((s) => s.sessionId === "s-01")).toBe(false);
  });
});

describe("a state.db written by Hermes itself", () => {
  test("lists and loads its acp sessions and leaves its cli sessions untouched", async () => {
    const home = join(tempDir(), "hermes");
    mkdirSync(home, { recursive: true });
    copyFileSync(join(import.meta.dir, "../fixtures/hermes-v16-state.db"), join(home, "state.db"));
    const dumpCli = () => {
      const db = new Database(join(home, "state.db"), { readonly: true });
      const rows = db.query("SELECT * FROM sessions WHERE source = 'cli' ORDER BY id").all();
      const msgs = db.query("SELECT m.* FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.source = 'cli' ORDER BY m.id").all();
      db.close();
      return JSON.stringify([rows, msgs]);
    };
    const before = dumpCli();
    const h = await start({ home });
    const list = (await h.peer.call("session/list", {})).sessions as Json[];
    expect(list.length).toBeGreaterThan(0);
    const ids = new Set(list.map((s) => s.sessionId));
    expect(ids.size).toBe(list.length);
    for (const s of list) {
      const r = await h.peer.request("session/load", { sessionId: s.sessionId, cwd: s.cwd, mcpServers: [] });
      expect(r.result).toBeDefined();
    }
    expect(h.peer.updates().some((u) => u.sessionUpdate === "user_message_chunk")).toBe(true);
    await h.close();
    harnesses = harnesses.filter((x) => x !== h);
    expect(dumpCli()).toBe(before);
  });
});


describe("a damaged state.db", () => {
  test("session requests get a clear error naming the file and the fix; the process lives on", async () => {
    const home = join(tempDir(), "hermes");
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "state.db"), "not a database ".repeat(20));
    const h = await start({ home });
    const r = await h.peer.request("session/new", { cwd: tempDir(), mcpServers: [] });
    expect(r.error?.code).toBe(-32603);
    expect(r.error?.message).toContain("state.db");
    expect(r.error?.message).toContain("--check");
    expect((await h.peer.request("session/list", {})).error?.message).toContain("state.db");
    expect((await h.peer.request("ping", {})).error?.code).toBe(-32601);
  });
});
