import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SessionStore } from "../../src/session/store.ts";
import { cleanupTempDirs, FX, fixtureCopy } from "./helpers.ts";

afterAll(cleanupTempDirs);

/** Every column of the cli sessions and their messages, as raw values. */
function dumpCliRows(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const sessions = db.query("SELECT * FROM sessions WHERE source = 'cli' ORDER BY id").values();
    const messages = db
      .query("SELECT m.* FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.source = 'cli' ORDER BY m.id")
      .values();
    return JSON.stringify({ sessions, messages });
  } finally {
    db.close();
  }
}

describe("the Hermes-written fixture", () => {
  test("listSessions('acp') shows each acp root once, the compression chain as one entry, and no cli rows", () => {
    const store = SessionStore.open(fixtureCopy());
    const rows = store.listSessions({ source: "acp" });
    expect(rows.map((r) => r.id)).toEqual([FX.chainRoot, FX.acp]); // newest activity first
    const chain = rows[0]!;
    expect(chain.tipId).toBe(FX.chainTip);
    expect(chain.title).toBe("Refactor session store");
    // last activity comes from the continuation's messages, not the root's
    const tipLast = store.loadMessages(FX.chainTip).at(-1)!.timestamp;
    expect(chain.lastActive).toBe(tipLast);
    expect(rows[1]!.tipId).toBe(FX.acp);
    expect(rows[1]!.modelConfig).toEqual({ cwd: "/tmp/acp-project" });
    expect(store.listSessions({ source: "cli" }).map((r) => r.id).sort()).toEqual([FX.cli1, FX.cli2]);
    store.close();
  });

  test("loadMessages decodes the 6 acp messages, list content included", () => {
    const store = SessionStore.open(fixtureCopy());
    const loaded = store.loadMessages(FX.acp);
    expect(loaded.map((m) => m.message.role)).toEqual(["user", "assistant", "tool", "assistant", "user", "assistant"]);
    expect(loaded[4]!.message).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Summarise this file:" },
        { type: "text", text: "[File: src/index.ts]\nexport const main = () => 42;\n" },
      ],
    });
    expect(loaded[1]!.message).toMatchObject({
      role: "assistant",
      finish_reason: "tool_calls",
      tool_calls: [{ id: "call_acp_1", type: "function", function: { name: "search_files" } }],
    });
    expect(loaded[2]!.message).toMatchObject({ role: "tool", tool_call_id: "call_acp_1", tool_name: "search_files" });
    expect(loaded.map((m) => m.rowId)).toEqual([11, 12, 13, 14, 15, 16]);
    store.close();
  });

  test("getSession maps the row; compression tip and lineage follow the chain", () => {
    const store = SessionStore.open(fixtureCopy());
    expect(store.getSession(FX.chainRoot)).toMatchObject({
      source: "acp",
      model: "test-model",
      endReason: "compression",
      messageCount: 4,
      toolCallCount: 1,
      archived: false,
      parentSessionId: null,
    });
    expect(store.getSession("nope")).toBeNull();
    expect(store.compressionTip(FX.chainRoot)).toBe(FX.chainTip);
    expect(store.compressionTip(FX.acp)).toBe(FX.acp);
    expect(store.lineage(FX.chainRoot)).toEqual([FX.chainRoot, FX.chainTip]);
    store.close();
  });

  test("appending to an acp session keeps every cli row byte-identical", () => {
    const path = fixtureCopy();
    const before = dumpCliRows(path);
    const store = SessionStore.open(path);
    store.appendMessages(FX.acp, [
      { role: "user", content: [{ type: "text", text: "one more" }] },
      { role: "assistant", content: "done" },
    ]);
    store.updateSession(FX.acp, { model: "other-model", modelConfig: { provider: "openrouter" } });
    store.setTitle(FX.acp, "Fix Monday date test"); // collides with a cli title: must not touch the cli row
    store.close();
    expect(dumpCliRows(path)).toBe(before);
    const check = SessionStore.open(path);
    expect(check.getSession(FX.acp)?.messageCount).toBe(8);
    expect(check.getSession(FX.acp)?.title).toBe("Fix Monday date test #2");
    check.close();
  });

  test("updateSession merges model_config and touches only named columns", () => {
    const path = fixtureCopy();
    const store = SessionStore.open(path);
    store.updateSession(FX.acp, { modelConfig: { provider: "anthropic", base_url: "https://x" } });
    store.updateSession(FX.acp, { modelConfig: { api_mode: "chat" } });
    const row = store.getSession(FX.acp)!;
    expect(row.modelConfig).toEqual({ cwd: "/tmp/acp-project", provider: "anthropic", base_url: "https://x", api_mode: "chat" });
    expect(row).toMatchObject({ title: "List TypeScript files", messageCount: 6, toolCallCount: 1, model: "test-model" });
    store.close();
    const db = new Database(path, { readonly: true });
    // still valid JSON for Hermes' json_extract
    expect(db.query("SELECT json_extract(model_config, '$.cwd') FROM sessions WHERE id = ?").values(FX.acp)).toEqual([["/tmp/acp-project"]]);
    db.close();
  });
});
