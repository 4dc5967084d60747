import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { sessionProvenance } from "../../src/session/provenance.ts";
import { SessionStore } from "../../src/session/store.ts";
import { cleanupTempDirs, FX, fixtureCopy, freshDbPath } from "./helpers.ts";

afterAll(cleanupTempDirs);

function setup() {
  let now = 1000;
  const path = freshDbPath();
  const store = SessionStore.open(path, { clock: () => now });
  const tick = (s = 1) => (now += s);
  return { store, path, tick };
}

describe("rotateForCompression", () => {
  test("ends the parent first, creates a continuation started at/after it, numbers the title", () => {
    const { store, tick } = setup();
    store.createSession({ id: "acp-1", source: "acp", title: "Refactor store", modelConfig: { cwd: "/w" } });
    store.appendMessages("acp-1", [{ role: "user", content: "go" }]);
    tick();
    store.rotateForCompression("acp-1", "h2", { source: "acp", model: "m", modelConfig: { cwd: "/w" } });
    const parent = store.getSession("acp-1")!;
    const child = store.getSession("h2")!;
    expect(parent).toMatchObject({ endReason: "compression", endedAt: 1001 });
    expect(child).toMatchObject({ parentSessionId: "acp-1", title: "Refactor store #2", model: "m", modelConfig: { cwd: "/w" } });
    expect(child.startedAt).toBeGreaterThanOrEqual(parent.endedAt!);
    tick();
    store.rotateForCompression("h2", "h3", { source: "acp" });
    expect(store.getSession("h3")?.title).toBe("Refactor store #3");
    expect(store.lineage("acp-1")).toEqual(["acp-1", "h2", "h3"]);
    expect(store.compressionTip("acp-1")).toBe("h3");
    expect(store.compressionTip("h2")).toBe("h3");
    // the chain is one picker entry, active through its tip
    store.appendMessages("h3", [{ role: "user", content: "later" }]);
    const listed = store.listSessions({ source: "acp" });
    expect(listed.map((r) => [r.id, r.tipId])).toEqual([["acp-1", "h3"]]);
    expect(listed[0]!.lastActive).toBe(store.loadMessages("h3")[0]!.timestamp);
    store.close();
  });

  test("an untitled parent gives an untitled child; a parent ended otherwise cannot rotate (rolled back)", () => {
    const { store } = setup();
    store.createSession({ id: "a", source: "acp" });
    store.rotateForCompression("a", "b", { source: "acp" });
    expect(store.getSession("b")?.title).toBeNull();
    store.createSession({ id: "c", source: "acp" });
    store.endSession("c", "agent_close");
    expect(() => store.rotateForCompression("c", "d", { source: "acp" })).toThrow(/agent_close/);
    expect(store.getSession("d")).toBeNull();
    expect(() => store.rotateForCompression("missing", "e", { source: "acp" })).toThrow();
    expect(store.getSession("e")).toBeNull();
    store.close();
  });

  test("compressionTip and lineage are cycle-safe", () => {
    const { store, path } = setup();
    store.createSession({ id: "x", source: "acp" });
    store.createSession({ id: "y", source: "acp" });
    const db = new Database(path);
    db.run("PRAGMA foreign_keys = OFF");
    db.run("UPDATE sessions SET parent_session_id = 'y', end_reason = 'compression', ended_at = 0, started_at = 0 WHERE id = 'x'");
    db.run("UPDATE sessions SET parent_session_id = 'x', end_reason = 'compression', ended_at = 0, started_at = 0 WHERE id = 'y'");
    db.close();
    expect(store.lineage("x")).toEqual(["x", "y"]);
    expect(store.compressionTip("x")).toBe("y");
    expect(sessionProvenance(store, "x", "x")).toMatchObject({ rootHermesSessionId: "y", compressionDepth: 1 });
    store.close();
  });
});

describe("sessionProvenance (hermes-behaviour §16)", () => {
  test("matrix: root, continuation depth 1 and 2, non-compression parent, unknown", () => {
    const { store, tick } = setup();
    store.createSession({ id: "root", source: "acp" });
    tick();
    store.rotateForCompression("root", "c1", { source: "acp" });
    tick();
    store.rotateForCompression("c1", "c2", { source: "acp" });
    store.createSession({ id: "branch", source: "acp", parentSessionId: "c2", modelConfig: { _branched_from: "c2" } });

    expect(sessionProvenance(store, "root", "root")).toEqual({
      acpSessionId: "root", currentHermesSessionId: "root", rootHermesSessionId: "root",
      parentHermesSessionId: null, sessionKind: "root", compressionDepth: 0,
    });
    expect(sessionProvenance(store, "root", "c1", "root")).toEqual({
      acpSessionId: "root", currentHermesSessionId: "c1", rootHermesSessionId: "root",
      parentHermesSessionId: "root", sessionKind: "continuation", compressionDepth: 1,
      previousHermesSessionId: "root", reason: "compression", creatorKind: "compression",
    });
    expect(sessionProvenance(store, "root", "c2", "c2")).toEqual({
      acpSessionId: "root", currentHermesSessionId: "c2", rootHermesSessionId: "root",
      parentHermesSessionId: "c1", sessionKind: "continuation", compressionDepth: 2,
      previousHermesSessionId: "c2",
    });
    // c2 is live (not ended by compression): the branch is a root kind, but the walk still reaches the root
    expect(sessionProvenance(store, "branch", "branch")).toEqual({
      acpSessionId: "branch", currentHermesSessionId: "branch", rootHermesSessionId: "root",
      parentHermesSessionId: "c2", sessionKind: "root", compressionDepth: 2,
    });
    expect(sessionProvenance(store, "nope", "nope")).toBeNull();
    store.close();
  });

  test("on the Hermes fixture chain", () => {
    const store = SessionStore.open(fixtureCopy());
    expect(sessionProvenance(store, FX.chainRoot, FX.chainTip)).toMatchObject({
      rootHermesSessionId: FX.chainRoot, parentHermesSessionId: FX.chainRoot, sessionKind: "continuation", compressionDepth: 1,
    });
    store.close();
  });
});
