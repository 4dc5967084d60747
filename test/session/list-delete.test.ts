import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SessionStore } from "../../src/session/store.ts";
import { cleanupTempDirs, freshDbPath } from "./helpers.ts";

afterAll(cleanupTempDirs);

function setup() {
  let now = 1000;
  const path = freshDbPath();
  const store = SessionStore.open(path, { clock: () => now });
  const at = (t: number) => (now = t);
  return { store, path, at };
}
const say = (text: string) => [{ role: "user" as const, content: text }];

describe("listSessions", () => {
  test("shows roots and branches; hides archived, empty, delegate, orphan-marked, other-source and continuation rows", () => {
    const { store, path, at } = setup();
    at(100);
    store.createSession({ id: "root", source: "acp" });
    store.appendMessages("root", say("r"));
    store.createSession({ id: "empty", source: "acp" });
    store.createSession({ id: "cli", source: "cli" });
    store.appendMessages("cli", say("c"));
    store.createSession({ id: "archived", source: "acp" });
    store.appendMessages("archived", say("a"));
    store.createSession({ id: "orphan", source: "acp", modelConfig: { _delegate_from: "__orphaned__" } });
    store.appendMessages("orphan", say("o"));
    store.createSession({ id: "delegate", source: "acp", parentSessionId: "root", modelConfig: { _delegate_from: "root" } });
    store.appendMessages("delegate", say("d"));
    store.createSession({ id: "subagent", source: "acp", parentSessionId: "root" }); // unmarked child: still hidden
    store.appendMessages("subagent", say("s"));
    at(200);
    store.createSession({ id: "branch", source: "acp", parentSessionId: "root", modelConfig: { _branched_from: "root" } });
    store.appendMessages("branch", say("b"));
    // an empty root whose continuation has messages is listed
    at(300);
    store.createSession({ id: "compressed", source: "acp" });
    store.rotateForCompression("compressed", "cont", { source: "acp" });
    store.appendMessages("cont", say("x"));
    const db = new Database(path);
    db.run("UPDATE sessions SET archived = 1 WHERE id = 'archived'");
    db.run("UPDATE sessions SET model_config = 'not json' WHERE id = 'root'"); // must not break the query
    db.close();

    const rows = store.listSessions({ source: "acp" });
    expect(rows.map((r) => r.id)).toEqual(["compressed", "branch", "root"]);
    expect(rows[0]).toMatchObject({ tipId: "cont", lastActive: 300, messageCount: 0 });
    expect(rows[2]).toMatchObject({ lastActive: 100, modelConfig: {} });
    store.close();
  });

  test("no N+1: one query serves a few hundred sessions quickly", () => {
    const { store } = setup();
    for (let i = 0; i < 300; i++) {
      store.createSession({ id: `s${i}`, source: "acp" });
      store.appendMessages(`s${i}`, say(`m${i}`));
    }
    const t0 = performance.now();
    const rows = store.listSessions({ source: "acp" });
    const ms = performance.now() - t0;
    expect(rows).toHaveLength(300);
    expect(ms).toBeLessThan(500);
    store.close();
  });
});

describe("deleteSession (Hermes order, foreign keys on)", () => {
  test("deletes delegate children, unlinks continuations and branches, removes messages and the row", () => {
    const { store, path } = setup();
    store.createSession({ id: "p", source: "acp" });
    store.appendMessages("p", say("parent"));
    store.createSession({ id: "del", source: "acp", parentSessionId: "p", modelConfig: { _delegate_from: "p" } });
    store.appendMessages("del", say("delegate"));
    store.createSession({ id: "grand", source: "acp", parentSessionId: "del" });
    store.createSession({ id: "br", source: "acp", parentSessionId: "p", modelConfig: { _branched_from: "p" } });
    store.rotateForCompression("p", "cont", { source: "acp" });
    store.appendMessages("cont", say("after"));
    store.createSession({ id: "bystander", source: "acp" });
    store.appendMessages("bystander", say("keep"));

    store.deleteSession("p");
    expect(store.getSession("p")).toBeNull();
    expect(store.getSession("del")).toBeNull();
    expect(store.getSession("grand")?.parentSessionId).toBeNull();
    expect(store.getSession("br")?.parentSessionId).toBeNull();
    expect(store.getSession("cont")?.parentSessionId).toBeNull();
    expect(store.loadMessages("cont")).toHaveLength(1);
    expect(store.loadMessages("bystander")).toHaveLength(1);
    store.deleteSession("never-existed"); // no-op
    expect(store.integrityCheck()).toBe("ok");
    store.close();

    const db = new Database(path, { readonly: true });
    expect(db.query("SELECT COUNT(*) FROM messages WHERE session_id IN ('p', 'del')").values()).toEqual([[0]]);
    expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
    db.close();
  });
});
