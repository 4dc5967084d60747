import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import type { ChatMessage } from "../../src/agent/messages.ts";
import { newHermesSessionId, SessionStore } from "../../src/session/store.ts";
import { cleanupTempDirs, freshDbPath } from "./helpers.ts";

afterAll(cleanupTempDirs);

function openFresh(clock?: () => number): { store: SessionStore; path: string } {
  const path = freshDbPath();
  return { store: SessionStore.open(path, clock ? { clock } : {}), path };
}

const call = (id: string) => ({ id, type: "function" as const, function: { name: "read_file", arguments: "{}" } });
const turn: ChatMessage[] = [
  { role: "user", content: "read two files" },
  { role: "assistant", content: null, tool_calls: [call("a"), call("b")], reasoning: "both", finish_reason: "tool_calls" },
  { role: "tool", content: "A", tool_call_id: "a", tool_name: "read_file" },
  { role: "tool", content: "B", tool_call_id: "b", tool_name: "read_file" },
  { role: "assistant", content: "done", reasoning_content: "rc", finish_reason: "stop" },
];

describe("sessions", () => {
  test("createSession is INSERT OR IGNORE with Hermes encodings", () => {
    const { store, path } = openFresh(() => 1000.5);
    store.createSession({ id: "s1", source: "acp", model: "m", modelConfig: { cwd: "/w" }, title: "  My\u200b  title\n" });
    store.createSession({ id: "s1", source: "cli", model: "other" }); // ignored
    store.createSession({ id: "s2", source: "acp" });
    expect(store.getSession("s1")).toEqual({
      id: "s1", source: "acp", model: "m", modelConfig: { cwd: "/w" }, title: "My title", parentSessionId: null,
      startedAt: 1000.5, endedAt: null, endReason: null, messageCount: 0, toolCallCount: 0, archived: false,
    });
    store.close();
    const db = new Database(path, { readonly: true });
    expect(db.query("SELECT model_config FROM sessions ORDER BY id").values()).toEqual([['{"cwd":"/w"}'], [null]]);
    db.close();
  });

  test("endSession: the first reason wins", () => {
    let now = 10;
    const { store } = openFresh(() => now);
    store.createSession({ id: "s", source: "acp" });
    store.endSession("s", "agent_close");
    now = 20;
    store.endSession("s", "compression");
    expect(store.getSession("s")).toMatchObject({ endedAt: 10, endReason: "agent_close" });
    store.close();
  });

  test("newHermesSessionId has Hermes' YYYYMMDD_HHMMSS_<6 hex> shape", () => {
    expect(newHermesSessionId(new Date(2026, 5, 22, 9, 5, 7))).toMatch(/^20260622_090507_[0-9a-f]{6}$/);
    expect(newHermesSessionId()).not.toBe(newHermesSessionId());
  });
});

describe("messages", () => {
  test("round trip, counters, row ids and column encodings", () => {
    const { store, path } = openFresh();
    store.createSession({ id: "s", source: "acp" });
    const ids = store.appendMessages("s", turn);
    expect(ids).toHaveLength(5);
    expect(store.getSession("s")).toMatchObject({ messageCount: 5, toolCallCount: 2 });
    const loaded = store.loadMessages("s");
    expect(loaded.map((m) => m.message)).toEqual(turn);
    expect(loaded.map((m) => m.rowId)).toEqual(ids);
    expect(store.appendMessages("s", [])).toEqual([]);
    store.close();

    const db = new Database(path, { readonly: true });
    const rows = db
      .query("SELECT role, tool_calls, tool_call_id, tool_name, reasoning, active, compacted, observed FROM messages ORDER BY id")
      .all();
    expect(rows[0]).toEqual({ role: "user", tool_calls: null, tool_call_id: null, tool_name: null, reasoning: null, active: 1, compacted: 0, observed: 0 });
    expect(JSON.parse(String((rows[1] as { tool_calls: string }).tool_calls))).toEqual([call("a"), call("b")]);
    expect(rows[2]).toMatchObject({ tool_call_id: "a", tool_name: "read_file" });
    db.close();
  });

  test("list content is stored with Hermes' NUL json sentinel", () => {
    const { store, path } = openFresh();
    store.createSession({ id: "s", source: "acp" });
    const parts = [{ type: "text" as const, text: "look" }, { type: "image_url" as const, image_url: { url: "data:x" } }];
    store.appendMessages("s", [{ role: "user", content: parts }]);
    store.close();
    const db = new Database(path, { readonly: true });
    const [[content]] = db.query("SELECT content FROM messages").values() as [[string]];
    expect(content).toBe(`\u0000json:${JSON.stringify(parts)}`);
    db.close();
  });

  test("timestamps strictly increase across rapid appends in the same millisecond", () => {
    const { store } = openFresh(() => 1_800_000_000.123); // frozen clock
    store.createSession({ id: "s", source: "acp" });
    for (let i = 0; i < 50; i++) store.appendMessages("s", [{ role: "user", content: `m${i}` }, { role: "assistant", content: "ok" }]);
    const ts = store.loadMessages("s").map((m) => m.timestamp);
    expect(ts).toHaveLength(100);
    for (let i = 1; i < ts.length; i++) expect(ts[i]!).toBeGreaterThan(ts[i - 1]!);
    expect(ts[0]).toBe(1_800_000_000.123);
    store.close();
  });

  test("the wall clock wins once it is ahead of the last timestamp", () => {
    let now = 100;
    const { store } = openFresh(() => now);
    store.createSession({ id: "s", source: "acp" });
    store.appendMessages("s", [{ role: "user", content: "a" }]);
    now = 200;
    store.appendMessages("s", [{ role: "user", content: "b" }]);
    expect(store.loadMessages("s").map((m) => m.timestamp)).toEqual([100, 200]);
    store.close();
  });

  test("deactivateMessages hides rows as rewound (active=0, compacted=0) and zeroes counters", () => {
    const { store, path } = openFresh();
    store.createSession({ id: "s", source: "acp" });
    store.createSession({ id: "other", source: "acp" });
    store.appendMessages("s", turn);
    store.appendMessages("other", [{ role: "user", content: "keep me" }]);
    store.deactivateMessages("s");
    expect(store.loadMessages("s")).toEqual([]);
    expect(store.getSession("s")).toMatchObject({ messageCount: 0, toolCallCount: 0 });
    expect(store.loadMessages("other")).toHaveLength(1);
    store.appendMessages("s", [{ role: "user", content: "fresh start" }]);
    expect(store.loadMessages("s").map((m) => m.message)).toEqual([{ role: "user", content: "fresh start" }]);
    expect(store.getSession("s")?.messageCount).toBe(1);
    store.close();
    const db = new Database(path, { readonly: true });
    expect(db.query("SELECT active, compacted, COUNT(*) FROM messages WHERE session_id = 's' GROUP BY 1, 2").values()).toEqual([
      [0, 0, 5],
      [1, 0, 1],
    ]);
    db.close();
  });

  test("a bad row degrades: unknown role skipped, broken tool_calls dropped, never throws", () => {
    const { store, path } = openFresh();
    store.createSession({ id: "s", source: "acp" });
    store.appendMessages("s", [{ role: "user", content: "hi" }]);
    const db = new Database(path);
    db.run("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s', 'session_meta', 'x', 9e9)");
    db.run("INSERT INTO messages (session_id, role, content, tool_calls, timestamp) VALUES ('s', 'assistant', 'y', '{broken', 9e9 + 1)");
    db.run(
      `INSERT INTO messages (session_id, role, content, tool_calls, timestamp) VALUES ('s', 'assistant', NULL, '[{"id":"ok","type":"function","function":{"name":"t","arguments":"{}"}},{"nope":1}]', 9e9 + 2)`,
    );
    db.run("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s', 'user', char(0) || 'json:{not json', 9e9 + 3)");
    db.close();
    const loaded = store.loadMessages("s").map((m) => m.message);
    expect(loaded).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "y" },
      { role: "assistant", content: null, tool_calls: [{ id: "ok", type: "function", function: { name: "t", arguments: "{}" } }] },
      { role: "user", content: "{not json" },
    ]);
    store.close();
  });

  test("a writer waiting on another process's lock succeeds once it is released", async () => {
    const { store, path } = openFresh();
    store.createSession({ id: "s", source: "acp" });
    const holder = Bun.spawn(
      [process.execPath, "-e", `const {Database}=require("bun:sqlite");const d=new Database(${JSON.stringify(path)});d.run("BEGIN IMMEDIATE");console.log("locked");Bun.sleepSync(300);d.run("COMMIT");`],
      { stdout: "pipe" },
    );
    const reader = holder.stdout.getReader();
    await reader.read(); // "locked"
    const started = performance.now();
    expect(store.appendMessages("s", [{ role: "user", content: "after the lock" }])).toHaveLength(1);
    expect(performance.now() - started).toBeGreaterThan(100);
    await holder.exited;
    expect(store.loadMessages("s")).toHaveLength(1);
    store.close();
  });
});
