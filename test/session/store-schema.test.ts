import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, statSync, writeFileSync } from "node:fs";
import { SessionStore } from "../../src/session/store.ts";
import { cleanupTempDirs, fixtureCopy, freshDbPath, tempDir } from "./helpers.ts";

afterAll(cleanupTempDirs);

// state-db-schema.md §2, in creation order (rowid order of sqlite_master).
const V16_OBJECTS: [string, string][] = [
  ["table", "schema_version"], ["table", "sessions"], ["index", "sqlite_autoindex_sessions_1"],
  ["table", "messages"], ["table", "sqlite_sequence"], ["table", "state_meta"],
  ["index", "sqlite_autoindex_state_meta_1"], ["table", "compression_locks"],
  ["index", "sqlite_autoindex_compression_locks_1"], ["index", "idx_sessions_source"],
  ["index", "idx_sessions_source_id"], ["index", "idx_sessions_parent"], ["index", "idx_sessions_started"],
  ["index", "idx_messages_session"], ["index", "idx_compression_locks_expires"],
  ["index", "idx_messages_platform_msg_id"], ["index", "idx_messages_session_active"],
  ["index", "idx_sessions_title_unique"], ["table", "messages_fts"], ["table", "messages_fts_data"],
  ["table", "messages_fts_idx"], ["table", "messages_fts_content"], ["table", "messages_fts_docsize"],
  ["table", "messages_fts_config"], ["trigger", "messages_fts_insert"], ["trigger", "messages_fts_delete"],
  ["trigger", "messages_fts_update"], ["table", "messages_fts_trigram"], ["table", "messages_fts_trigram_data"],
  ["table", "messages_fts_trigram_idx"], ["table", "messages_fts_trigram_content"],
  ["table", "messages_fts_trigram_docsize"], ["table", "messages_fts_trigram_config"],
  ["trigger", "messages_fts_trigram_insert"], ["trigger", "messages_fts_trigram_delete"],
  ["trigger", "messages_fts_trigram_update"],
];

type MasterRow = { type: string; name: string; tbl_name: string; sql: string | null };
function master(path: string): MasterRow[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.query("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid").all() as MasterRow[];
  } finally {
    db.close();
  }
}

function pragma(path: string, sql: string): unknown {
  const db = new Database(path, { readonly: true });
  try {
    return db.query(sql).values()[0]?.[0];
  } finally {
    db.close();
  }
}

describe("fresh state.db", () => {
  test("has exactly the v16 objects, in order, with Hermes' own SQL text", () => {
    const path = freshDbPath();
    SessionStore.open(path).close();
    const fresh = master(path);
    expect(fresh.map((r) => [r.type, r.name])).toEqual(V16_OBJECTS);
    // The fixture was written by Hermes' SessionDB: the stored SQL must be byte-identical.
    expect(fresh).toEqual(master(fixtureCopy()));
    expect(fresh.find((r) => r.name === "idx_messages_session_active")?.sql).toBe(
      "CREATE INDEX idx_messages_session_active\n    ON messages(session_id, active, timestamp)",
    );
  });

  test("schema_version is one row 16, WAL, user_version 0, integrity ok", () => {
    const path = freshDbPath();
    const store = SessionStore.open(path);
    expect(store.integrityCheck()).toBe("ok");
    store.close();
    const db = new Database(path, { readonly: true });
    expect(db.query("SELECT version FROM schema_version").values()).toEqual([[16]]);
    db.close();
    expect(pragma(path, "PRAGMA journal_mode")).toBe("wal");
    expect(pragma(path, "PRAGMA user_version")).toBe(0);
  });

  test("the created file is private (0600) and close() checkpoints the WAL away", () => {
    const path = freshDbPath();
    const store = SessionStore.open(path);
    store.createSession({ id: "s", source: "acp" });
    store.appendMessages("s", [{ role: "user", content: "x".repeat(10_000) }]);
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(0);
    store.close();
    store.close(); // idempotent
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0).toBe(0);
    expect(() => store.createSession({ id: "t", source: "acp" })).toThrow(/closed/);
  });

  test("reopening changes nothing", () => {
    const path = freshDbPath();
    SessionStore.open(path).close();
    const before = master(path);
    SessionStore.open(path).close();
    expect(master(path)).toEqual(before);
    const db = new Database(path, { readonly: true });
    expect(db.query("SELECT version FROM schema_version").values()).toEqual([[16]]);
    db.close();
  });

  test("an empty (0-byte) file is initialised like an absent one", () => {
    const path = `${tempDir()}/state.db`;
    writeFileSync(path, "");
    SessionStore.open(path).close();
    expect(master(path).map((r) => [r.type, r.name])).toEqual(V16_OBJECTS);
  });
});

describe("existing state.db", () => {
  test("the fixture's schema is left untouched", () => {
    const path = fixtureCopy();
    const before = master(path);
    const store = SessionStore.open(path);
    store.createSession({ id: "x", source: "acp" });
    store.close();
    expect(master(path)).toEqual(before);
    expect(pragma(path, "PRAGMA journal_mode")).toBe("wal");
  });

  test("a missing schema_version row is inserted as 16, nothing else changes", () => {
    const path = fixtureCopy();
    const db = new Database(path);
    db.run("DELETE FROM schema_version");
    db.close();
    const before = master(path);
    SessionStore.open(path).close();
    expect(master(path)).toEqual(before);
    const check = new Database(path, { readonly: true });
    expect(check.query("SELECT version FROM schema_version").values()).toEqual([[16]]);
    check.close();
  });

  test("a DELETE-mode file is not switched to WAL", () => {
    const path = fixtureCopy();
    const db = new Database(path);
    db.run("PRAGMA journal_mode = DELETE");
    db.close();
    const store = SessionStore.open(path);
    store.createSession({ id: "x", source: "acp" });
    store.close();
    expect(pragma(path, "PRAGMA journal_mode")).toBe("delete");
  });

  test("a newer Hermes DB (version 17, extra columns and table) still works and stays 17", () => {
    const path = fixtureCopy();
    const db = new Database(path);
    db.run("UPDATE schema_version SET version = 17");
    db.run("ALTER TABLE sessions ADD COLUMN future_flag TEXT DEFAULT 'keep'");
    db.run("ALTER TABLE messages ADD COLUMN future_note TEXT");
    db.run("CREATE TABLE future_things (id INTEGER PRIMARY KEY)");
    db.close();
    const before = master(path);

    const store = SessionStore.open(path);
    store.createSession({ id: "new-acp", source: "acp", modelConfig: { cwd: "/w" } });
    store.appendMessages("new-acp", [{ role: "user", content: "hello from v17" }]);
    expect(store.getSession("new-acp")?.messageCount).toBe(1);
    expect(store.loadMessages("new-acp").map((m) => m.message)).toEqual([{ role: "user", content: "hello from v17" }]);
    expect(store.listSessions({ source: "acp" }).map((r) => r.id)).toContain("new-acp");
    store.close();

    expect(master(path)).toEqual(before);
    const check = new Database(path, { readonly: true });
    expect(check.query("SELECT version FROM schema_version").values()).toEqual([[17]]);
    expect(check.query("SELECT future_flag FROM sessions WHERE id = 'new-acp'").values()).toEqual([["keep"]]);
    check.close();
  });

  test("an older DB lacking optional columns is read with defaults", () => {
    const path = `${tempDir()}/old.db`;
    const db = new Database(path);
    db.run("CREATE TABLE schema_version (version INTEGER NOT NULL)");
    db.run("INSERT INTO schema_version VALUES (10)");
    db.run(`CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, model_config TEXT,
      parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT,
      message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0)`);
    db.run(`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
      content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL)`);
    db.run("INSERT INTO sessions (id, source, model_config, started_at, message_count) VALUES ('old', 'acp', 'not json', 5, 1)");
    db.run("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('old', 'user', 'hi', 6)");
    db.close();

    const store = SessionStore.open(path);
    const row = store.getSession("old");
    expect(row).toMatchObject({ id: "old", title: null, archived: false, modelConfig: {}, messageCount: 1 });
    expect(store.loadMessages("old").map((m) => m.message)).toEqual([{ role: "user", content: "hi" }]);
    store.appendMessages("old", [{ role: "assistant", content: "hello" }]);
    expect(store.loadMessages("old")).toHaveLength(2);
    expect(store.listSessions({ source: "acp" }).map((r) => r.id)).toEqual(["old"]);
    store.close();
    expect(pragma(path, "SELECT version FROM schema_version")).toBe(10);
  });
});

describe("full-text search (maintained by Hermes' triggers)", () => {
  test("FTS5 and trigram find inserted content, tool names and tool calls", () => {
    const path = freshDbPath();
    const store = SessionStore.open(path);
    store.createSession({ id: "s", source: "acp" });
    store.appendMessages("s", [
      { role: "user", content: "Please refactor the quuxification module" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "search_files", arguments: '{"pattern":"zorblax"}' } }],
      },
      { role: "tool", content: "found nothing", tool_call_id: "c1", tool_name: "search_files" },
    ]);
    store.close();
    const db = new Database(path, { readonly: true });
    const fts = (sql: string, q: string) => db.query(sql).values(q).flat();
    expect(fts("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?", "quuxification")).toHaveLength(1);
    expect(fts("SELECT rowid FROM messages_fts_trigram WHERE messages_fts_trigram MATCH ?", '"uxificat"')).toHaveLength(1);
    expect(fts("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?", "zorblax")).toHaveLength(1);
    expect(fts("SELECT rowid FROM messages_fts_trigram WHERE messages_fts_trigram MATCH ?", '"search_files"')).toHaveLength(2);
    db.close();
  });
});
