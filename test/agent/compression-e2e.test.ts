import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { INIT, startHarness, tempDir } from "../helpers/harness.ts";
import type { Json } from "../helpers/rpc-peer.ts";
import { reply } from "../helpers/fake-llm-server.ts";
import { fakeLlmSuite } from "../helpers/suite.ts";
import { SUMMARY_PREFIX } from "../../src/agent/compression.ts";

const suite = fakeLlmSuite();

const config = (url: string) =>
  `model:\n  provider: custom\n  base_url: ${url}\n  default: fake-model\n  context_length: 4000\ncompression:\n  threshold: 0.5\n  protect_first_n: 1\n  protect_last_n: 2\n`;

/** A session with a roomy context and four short exchanges (8 messages) behind it. */
async function sessionWithFourTurns() {
  const llm = suite.llm;
  const h = suite.track(await startHarness({ config: config(llm.url).replace("4000", "100000") }));
  await h.peer.call("initialize", INIT);
  const { sessionId } = (await h.peer.call("session/new", { cwd: tempDir(), mcpServers: [] })) as { sessionId: string };
  for (let i = 0; i < 4; i++) {
    llm.enqueue(reply().text(`answer ${i}`));
    await h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: `question ${i}` }] });
  }
  return { llm, h, sessionId };
}

const provenanceOf = (meta: unknown) => ((meta as Json).hermes as Json).sessionProvenance as Json;

describe("context compression with session provenance", () => {
  test("a long conversation compresses twice; lineage, provenance, replay after restart and list all hold", async () => {
    const llm = suite.llm;
    const h = suite.track(await startHarness({ config: config(llm.url) }));
    await h.peer.call("initialize", { ...INIT, clientCapabilities: { session: { compaction: {} } } });
    const cwd = tempDir();
    for (const f of ["a", "b", "c"]) writeFileSync(join(cwd, `${f}.txt`), `${f.toUpperCase()}-CONTENT `.repeat(200));
    const created = await h.peer.call("session/new", { cwd, mcpServers: [] });
    const sessionId = created.sessionId as string;
    expect(provenanceOf(created._meta)).toMatchObject({ acpSessionId: sessionId, currentHermesSessionId: sessionId, compressionDepth: 0, sessionKind: "root" });

    const read = (id: string, f: string, prompt: number) => reply().toolCall({ id, name: "read_file", args: { path: `${f}.txt` } }).usage({ prompt, completion: 5 });
    llm.enqueue(read("r1", "a", 100), read("r2", "b", 100), read("r3", "c", 3900), reply().text("SUMMARY-ONE of the work so far"), reply().text("done one"));
    const first = llm.requests.length;
    await h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "task one" }] });

    const summariser = llm.requests[first + 3]!;
    expect(summariser.tools ?? []).toEqual([]);
    expect(JSON.stringify(summariser.messages)).toContain("A-CONTENT");
    const afterFirst = llm.requests[first + 4]!.messages as Json[];
    expect(afterFirst.some((m) => String(m.content).startsWith(SUMMARY_PREFIX) && String(m.content).includes("SUMMARY-ONE"))).toBe(true);
    expect(JSON.stringify(afterFirst)).not.toContain("A-CONTENT");

    const rotations = () => h.peer.updates(sessionId).filter((u) => u.sessionUpdate === "session_info_update" && u._meta);
    expect(rotations()).toHaveLength(1);
    const p1 = provenanceOf(rotations()[0]!._meta);
    expect(p1).toMatchObject({ acpSessionId: sessionId, rootHermesSessionId: sessionId, parentHermesSessionId: sessionId, compressionDepth: 1, sessionKind: "continuation", previousHermesSessionId: sessionId, reason: "compression", creatorKind: "compression" });
    const compaction = h.peer.updates(sessionId).filter((u) => String(u.sessionUpdate).startsWith("compaction"));
    expect(compaction.map((u) => u.status ?? u.sessionUpdate)).toEqual(["in_progress", "compaction_summary_chunk", "completed"]);

    llm.enqueue(read("r4", "a", 100), read("r5", "b", 3900), reply().text("SUMMARY-TWO newer summary"), reply().text("done two"));
    await h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "task two" }] });
    expect(rotations()).toHaveLength(2);
    const p2 = provenanceOf(rotations()[1]!._meta);
    expect(p2).toMatchObject({ rootHermesSessionId: sessionId, parentHermesSessionId: p1.currentHermesSessionId, compressionDepth: 2, previousHermesSessionId: p1.currentHermesSessionId });
    const tip = p2.currentHermesSessionId as string;

    // Hermes sees the same lineage: root and first continuation ended by compression, the tip open.
    const store = h.services.store();
    expect(store.lineage(sessionId)).toEqual([sessionId, p1.currentHermesSessionId as string, tip]);
    expect(store.getSession(sessionId)!.endReason).toBe("compression");
    expect(store.getSession(tip)!.endReason).toBeNull();

    // After a restart: load replays everything the user saw, then the next prompt continues from the compressed context.
    const h2 = suite.track(await startHarness({ config: config(llm.url), home: h.home }));
    await h2.peer.call("initialize", INIT);
    const loaded = await h2.peer.call("session/load", { sessionId, cwd, mcpServers: [] });
    expect(provenanceOf(loaded._meta)).toMatchObject({ currentHermesSessionId: tip, compressionDepth: 2 });
    const replay = h2.peer.updates(sessionId);
    const users = replay.filter((u) => u.sessionUpdate === "user_message_chunk");
    expect(users.map((u) => String((u.content as Json).text).slice(0, 20))).toEqual(["task one", SUMMARY_PREFIX.slice(0, 20), "task two", SUMMARY_PREFIX.slice(0, 20)]);
    expect(users[1]!._meta).toEqual({ "hermes.compactionSummary": true, "hermes.containsCompactionSummary": true });
    const texts = replay.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => (u.content as Json).text);
    expect(texts).toEqual(["done one", "done two"]);
    expect(replay.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.toolCallId)).toEqual(["r1", "r2", "r3", "r4", "r5"]);

    llm.enqueue(reply().text("continuing"));
    await h2.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "task three" }] });
    const next = JSON.stringify(llm.requests.at(-1)!.messages);
    expect(next).toContain("SUMMARY-TWO");
    expect(next).toContain("task three");

    const listed = (await h2.peer.call("session/list", {})).sessions as Json[];
    expect(listed.map((s) => s.sessionId)).toEqual([sessionId]);
  });

  test("/compress compresses on demand; a failed summary leaves the conversation as it was", async () => {
    const { llm, h, sessionId } = await sessionWithFourTurns();
    const before = h.services.store().loadMessages(sessionId).length;
    llm.enqueue(reply().status(400));
    await h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "/compress" }] });
    expect(JSON.stringify(h.peer.updates(sessionId).at(-2))).toContain("Compression failed");
    expect(h.services.store().lineage(sessionId)).toEqual([sessionId]);
    expect(h.services.store().loadMessages(sessionId).length).toBe(before);

    llm.enqueue(reply().text("a short summary"));
    await h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "/compact" }] });
    expect(JSON.stringify(h.peer.updates(sessionId).filter((u) => u.sessionUpdate === "agent_message_chunk").at(-1))).toMatch(/Context compressed: 8 -> \d+ messages/);
    expect(h.services.store().lineage(sessionId)).toHaveLength(2);
  });

  test("auxiliary.compression names the summary model; one that cannot be resolved leaves it to the session's model", async () => {
    const llm = suite.llm;
    const base = config(llm.url).replace("4000", "100000");
    const compressOnce = async (configText: string) => {
      const h = suite.track(await startHarness({ config: configText }));
      await h.peer.call("initialize", INIT);
      const { sessionId } = (await h.peer.call("session/new", { cwd: tempDir(), mcpServers: [] })) as { sessionId: string };
      for (let i = 0; i < 4; i++) {
        llm.enqueue(reply().text(`answer ${i}`));
        await h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: `question ${i}` }] });
      }
      llm.enqueue(reply().text("the summary"));
      await h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "/compress" }] });
      expect(h.services.store().lineage(sessionId)).toHaveLength(2);
      return llm.requests.at(-1)!.model;
    };
    expect(await compressOnce(`${base}auxiliary:\n  compression:\n    provider: auto\n    model: cheap-summariser\n`)).toBe("cheap-summariser");
    expect(await compressOnce(`${base}auxiliary:\n  compression:\n    provider: custom\n    model: other-summariser\n`)).toBe("other-summariser");
    // Another endpoint (a named provider): its own client.
    expect(await compressOnce(`${base}providers:\n  cheap:\n    base_url: ${llm.url}\n    api_key: sk-cheap\nauxiliary:\n  compression:\n    provider: cheap\n    model: named-summariser\n`)).toBe("named-summariser");
    expect(llm.requests.at(-1)!.headers.authorization).toBe("Bearer sk-cheap");
    // Hermes' older spelling, inside `compression:`.
    expect(await compressOnce(base.replace("compression:\n", "compression:\n  summary_model: legacy-summariser\n"))).toBe("legacy-summariser");
    // A provider without a key: the session's own model writes the summary.
    expect(await compressOnce(`${base}auxiliary:\n  compression:\n    provider: openrouter\n    model: google/flash\n`)).toBe("fake-model");
  });

  test("a provider context-length error compresses the context and retries the request once", async () => {
    const { llm, h, sessionId } = await sessionWithFourTurns();
    llm.enqueue(
      reply().status(400, { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens." }),
      reply().text("SUMMARY-OVERFLOW"),
      reply().text("answer after compression"),
    );
    const r = await h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "question 4" }] });
    expect(r.stopReason).toBe("end_turn");
    expect(JSON.stringify(llm.requests.at(-1)!.messages)).toContain("SUMMARY-OVERFLOW");
    expect(JSON.stringify(h.peer.updates(sessionId))).toContain("answer after compression");
    expect(h.services.store().lineage(sessionId)).toHaveLength(2);
  });
});
