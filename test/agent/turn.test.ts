import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeProviderConfig, INIT, startHarness, tempDir, type Harness } from "../helpers/harness.ts";
import { mergeChunks, NO_ANSWER, type Json } from "../helpers/rpc-peer.ts";
import { reply, startFakeLlm, type FakeLlmServer } from "../helpers/fake-llm-server.ts";

let llm: FakeLlmServer;
let harnesses: Harness[] = [];
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(async () => {
  await llm.stop();
});
afterEach(async () => {
  for (const h of harnesses) await h.close();
  harnesses = [];
  llm.requests.length = 0;
});

async function start(opts: { home?: string; env?: Record<string, string>; caps?: Json } = {}) {
  const h = await startHarness({ config: fakeProviderConfig(llm.url), ...opts });
  harnesses.push(h);
  await h.peer.call("initialize", { ...INIT, clientCapabilities: opts.caps ?? {} });
  return h;
}

async function session(h: Harness, cwd = tempDir()) {
  const r = await h.peer.call("session/new", { cwd, mcpServers: [] });
  return { sessionId: r.sessionId as string, cwd };
}

const prompt = (h: Harness, sessionId: string, text: string) =>
  h.peer.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, 20_000);

const kinds = (updates: Json[]) => updates.map((u) => u.sessionUpdate);

describe("the agent turn", () => {
  test("streams thoughts and text, runs a tool round trip, persists every message and replays it after a restart", async () => {
    const h = await start();
    const { sessionId, cwd } = await session(h);
    writeFileSync(join(cwd, "notes.txt"), "alpha\nbeta\n");
    llm.enqueue(
      reply().reasoning("I should read the file.").text("Reading it.").toolCall({ id: "call_1", name: "read_file", args: { path: "notes.txt" } }),
      reply().reasoning("Now answer.").text("The file has ").text("two lines.").usage({ prompt: 120, completion: 8 }),
    );
    const r = await prompt(h, sessionId, "What is in notes.txt?");
    expect(r.result).toEqual({ stopReason: "end_turn" });

    const updates = mergeChunks(h.peer.updates(sessionId).filter((u) => !["available_commands_update", "usage_update", "session_info_update"].includes(String(u.sessionUpdate))));
    expect(kinds(updates)).toEqual([
      "agent_thought_chunk",
      "agent_message_chunk",
      "tool_call",
      "tool_call_update",
      "tool_call_update",
      "agent_thought_chunk",
      "agent_message_chunk",
    ]);
    expect((updates[6]!.content as Json).text).toBe("The file has two lines.");
    expect(updates[2]).toMatchObject({ toolCallId: "call_1", kind: "read", title: "read: notes.txt" });
    expect(updates[4]).toMatchObject({ toolCallId: "call_1", status: "completed" });
    expect(JSON.stringify(updates[4])).toContain("alpha");
    expect(updates[1]!.messageId).toBeDefined();

    // The model saw the tool result, paired by the provider's id.
    const second = llm.requests[1]!.messages as Json[];
    expect(second.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_1" });
    expect(String(second.at(-1)!.content)).toContain("alpha");
    expect(second[0]).toMatchObject({ role: "system" });
    expect(String(second[0]!.content)).toContain(cwd);

    const usage = h.peer.updates(sessionId).filter((u) => u.sessionUpdate === "usage_update").at(-1);
    expect(usage).toMatchObject({ used: 128, size: 32000 });
    const info = h.peer.updates(sessionId).find((u) => u.sessionUpdate === "session_info_update");
    expect(info).toMatchObject({ title: "What is in notes.txt?" });

    const stored = h.services.store().loadMessages(sessionId).map((m) => m.message.role);
    expect(stored).toEqual(["user", "assistant", "tool", "assistant"]);

    const h2 = await start({ home: h.home });
    await h2.peer.call("session/load", { sessionId, cwd, mcpServers: [] });
    const replayed = h2.peer.updates(sessionId).filter((u) => !["available_commands_update", "usage_update"].includes(String(u.sessionUpdate)));
    expect(kinds(replayed)).toEqual([
      "user_message_chunk",
      "agent_thought_chunk",
      "agent_message_chunk",
      "tool_call",
      "tool_call_update",
      "agent_thought_chunk",
      "agent_message_chunk",
    ]);
    expect(replayed[6]).toMatchObject({ content: { type: "text", text: "The file has two lines." } });
    const listed = (await h2.peer.call("session/list", {})).sessions as Json[];
    expect(listed.map((s) => s.title)).toContain("What is in notes.txt?");
  });

  test("max_tokens when the model is cut off, refusal on a content filter, max_turn_requests past the budget", async () => {
    const h = await start();
    const { sessionId } = await session(h);
    llm.enqueue(reply().text("partial").finish("length"));
    expect((await prompt(h, sessionId, "one")).result).toEqual({ stopReason: "max_tokens" });
    llm.enqueue(reply().finish("content_filter"));
    expect((await prompt(h, sessionId, "two")).result).toEqual({ stopReason: "refusal" });

    writeFileSync(join(h.home, "config.yaml"), fakeProviderConfig(llm.url, "agent:\n  max_turns: 2\n"));
    for (let i = 0; i < 2; i++) llm.enqueue(reply().toolCall({ id: `loop_${i}`, name: "todo", args: {} }));
    expect((await prompt(h, sessionId, "three")).result).toEqual({ stopReason: "max_turn_requests" });
  });

  test("invalid tool arguments come back to the model as a readable error", async () => {
    const h = await start();
    const { sessionId } = await session(h);
    llm.enqueue(reply().toolCall({ id: "bad_1", name: "read_file", args: { offset: 3 } }), reply().text("ok"));
    await prompt(h, sessionId, "read");
    const toolMsg = (llm.requests[1]!.messages as Json[]).at(-1)!;
    expect(String(toolMsg.content)).toContain("path");
    const end = h.peer.updates(sessionId).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "failed");
    expect(end).toBeDefined();
  });

  test("provider errors: 429 then success; 500s exhausted; disconnect mid-stream — clear message, history intact, session usable", async () => {
    const h = await start({ caps: { session: { notices: {} } } });
    const { sessionId } = await session(h);

    llm.enqueue(reply().status(429, { retryAfter: 0 }), reply().text("after retry"));
    expect((await prompt(h, sessionId, "first")).result).toEqual({ stopReason: "end_turn" });
    expect(JSON.stringify(h.peer.updates(sessionId))).toContain("after retry");

    llm.enqueue(reply().status(500), reply().status(500), reply().status(500), reply().status(500));
    expect((await prompt(h, sessionId, "second")).result).toEqual({ stopReason: "end_turn" });
    const notice = h.peer.updates(sessionId).find((u) => u.sessionUpdate === "notice" && u.severity === "error");
    expect(notice).toBeDefined();
    expect(JSON.stringify(h.peer.updates(sessionId).filter((u) => u.sessionUpdate === "agent_message_chunk"))).toContain("500");

    llm.enqueue(reply().text("half an ans").disconnectAfter(2));
    expect((await prompt(h, sessionId, "third")).result).toEqual({ stopReason: "end_turn" });

    llm.enqueue(reply().text("fine again"));
    expect((await prompt(h, sessionId, "fourth")).result).toEqual({ stopReason: "end_turn" });
    const roles = h.services.store().loadMessages(sessionId).map((m) => `${m.message.role}:${typeof m.message.content === "string" ? m.message.content : ""}`);
    expect(roles).toEqual(["user:first", "assistant:after retry", "user:second", "user:third", "user:fourth", "assistant:fine again"]);
  });
});

describe("cancellation and the queue", () => {
  test("the prompt is stored while the model request is in flight, first, and also when the turn ends before any request", async () => {
    const h = await start();
    const { sessionId } = await session(h);
    llm.enqueue(reply().text("partial").hang());
    const pending = prompt(h, sessionId, "remember me");
    await h.peer.waitFor((m) => ((m.params as Json | undefined)?.update as Json | undefined)?.sessionUpdate === "agent_message_chunk");
    const rows = () => h.services.store().loadMessages(sessionId).map((m) => [m.message.role, m.message.content]);
    expect(rows()).toEqual([["user", "remember me"]]);
    h.peer.notify("session/cancel", { sessionId });
    expect((await pending).result).toEqual({ stopReason: "cancelled" });
    expect(rows()).toEqual([
      ["user", "remember me"],
      ["assistant", "partial"],
    ]);
    // A provider that refuses at once: no request ever streamed, the prompt is still kept, before the error reply.
    llm.enqueue(reply().status(400));
    expect((await prompt(h, sessionId, "and me")).result).toEqual({ stopReason: "end_turn" });
    expect(rows().slice(2)).toEqual([["user", "and me"]]);
  });

  test("a silent turn sends keepalives (empty message chunks) until it ends, and gives up after the max silence", async () => {
    const keepalive = (h: Harness, sessionId: string) =>
      h.peer.updates(sessionId).filter((u) => u.sessionUpdate === "agent_message_chunk" && (u.content as Json).text === "");
    const h = await startHarness({
      config: fakeProviderConfig(llm.url, "acp:\n  turn_keepalive_interval_seconds: 0.1\n  turn_keepalive_max_silent_seconds: 0.45\n"),
    });
    harnesses.push(h);
    await h.peer.call("initialize", { ...INIT, clientCapabilities: {} });
    const { sessionId } = await session(h);
    llm.enqueue(reply().text("thinking hard").hang());
    const pending = prompt(h, sessionId, "slow one");
    await Bun.sleep(350);
    const beats = keepalive(h, sessionId);
    expect(beats.length).toBeGreaterThanOrEqual(2);
    expect(beats[0]).toEqual({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "" } });
    // Past the max silence: no more of them, though the turn still runs.
    await Bun.sleep(400);
    const atGiveUp = keepalive(h, sessionId).length;
    expect(atGiveUp).toBeLessThanOrEqual(5);
    await Bun.sleep(250);
    expect(keepalive(h, sessionId)).toHaveLength(atGiveUp);
    h.peer.notify("session/cancel", { sessionId });
    expect((await pending).result).toEqual({ stopReason: "cancelled" });
    // A quiet session between turns sends nothing.
    const afterTurn = keepalive(h, sessionId).length;
    await Bun.sleep(300);
    expect(keepalive(h, sessionId)).toHaveLength(afterTurn);
    // Keepalives are not history: the stored reply is the real text only.
    expect(h.services.store().loadMessages(sessionId).map((m) => m.message.content)).toEqual(["slow one", "thinking hard"]);
  });

  test("keepalive 0 turns it off", async () => {
    const h = await startHarness({ config: fakeProviderConfig(llm.url, "acp:\n  turn_keepalive_interval_seconds: 0\n") });
    harnesses.push(h);
    await h.peer.call("initialize", { ...INIT, clientCapabilities: {} });
    const { sessionId } = await session(h);
    llm.enqueue(reply().text("x").hang());
    const pending = prompt(h, sessionId, "quiet");
    await Bun.sleep(300);
    h.peer.notify("session/cancel", { sessionId });
    await pending;
    expect(h.peer.updates(sessionId).filter((u) => u.sessionUpdate === "agent_message_chunk" && (u.content as Json).text === "")).toEqual([]);
  });

  test("cancel while streaming returns cancelled promptly, once; the next prompt works", async () => {
    const h = await start();
    const { sessionId } = await session(h);
    llm.enqueue(reply().text("start").hang());
    const pending = prompt(h, sessionId, "long");
    await h.peer.waitFor((m) => ((m.params as Json | undefined)?.update as Json | undefined)?.sessionUpdate === "agent_message_chunk");
    const t0 = performance.now();
    h.peer.notify("session/cancel", { sessionId });
    expect((await pending).result).toEqual({ stopReason: "cancelled" });
    expect(performance.now() - t0).toBeLessThan(500);
    llm.enqueue(reply().text("next works"));
    expect((await prompt(h, sessionId, "again")).result).toEqual({ stopReason: "end_turn" });
    const responses = h.peer.received.filter((m) => "result" in m && (m.result as Json).stopReason === "cancelled");
    expect(responses).toHaveLength(1);
  });

  test("cancel while a tool runs kills its process group and returns cancelled", async () => {
    const h = await start({ env: { HERMES_YOLO_MODE: "1" } });
    const { sessionId, cwd } = await session(h);
    llm.enqueue(reply().toolCall({ id: "t1", name: "terminal", args: { command: "sleep 30; touch done.txt" } }));
    const pending = prompt(h, sessionId, "run");
    await h.peer.waitFor((m) => ((m.params as Json | undefined)?.update as Json | undefined)?.status === "in_progress");
    await Bun.sleep(100);
    const t0 = performance.now();
    h.peer.notify("session/cancel", { sessionId });
    expect((await pending).result).toEqual({ stopReason: "cancelled" });
    expect(performance.now() - t0).toBeLessThan(500);
    const stored = h.services.store().loadMessages(sessionId).map((m) => m.message.role);
    expect(stored).toEqual(["user", "assistant", "tool"]);
    expect(existsSync(join(cwd, "done.txt"))).toBe(false);
  });

  test("cancel while waiting for permission returns cancelled; the file is untouched", async () => {
    const h = await start();
    const { sessionId, cwd } = await session(h);
    writeFileSync(join(cwd, "a.txt"), "old\n");
    h.peer.onRequest("session/request_permission", () => NO_ANSWER);
    llm.enqueue(reply().toolCall({ id: "w1", name: "write_file", args: { path: "a.txt", content: "new\n" } }));
    const pending = prompt(h, sessionId, "write");
    await h.peer.waitFor((m) => m.method === "session/request_permission");
    h.peer.notify("session/cancel", { sessionId });
    expect((await pending).result).toEqual({ stopReason: "cancelled" });
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("old\n");
  });

  test("prompts arriving during a turn are queued and answered in order; cancel ends the queue too", async () => {
    const h = await start();
    const { sessionId } = await session(h);
    llm.enqueue(reply().text("one").delay(150), reply().text("two"), reply().text("three"));
    const a = prompt(h, sessionId, "first");
    const b = prompt(h, sessionId, "second");
    const c = prompt(h, sessionId, "third");
    const order: string[] = [];
    await Promise.all([a, b, c].map((p, i) => p.then(() => order.push(String(i)))));
    expect(order).toEqual(["0", "1", "2"]);
    expect(llm.requests.map((r) => JSON.stringify((r.messages as Json[]).at(-1)))).toEqual([
      expect.stringContaining("first"),
      expect.stringContaining("second"),
      expect.stringContaining("third"),
    ]);

    llm.enqueue(reply().text("x").hang());
    const d = prompt(h, sessionId, "fourth");
    const e = prompt(h, sessionId, "fifth");
    await h.peer.waitFor((m) => JSON.stringify(m).includes('"text":"x"'));
    h.peer.notify("session/cancel", { sessionId });
    expect((await d).result).toEqual({ stopReason: "cancelled" });
    expect((await e).result).toEqual({ stopReason: "cancelled" });
    llm.enqueue(reply().text("after"));
    expect((await prompt(h, sessionId, "sixth")).result).toEqual({ stopReason: "end_turn" });
  });

  test("/steer injects guidance before the next model call of the running turn; /queue runs after it", async () => {
    const h = await start({ env: { HERMES_YOLO_MODE: "1" } });
    const { sessionId } = await session(h);
    llm.enqueue(reply().toolCall({ id: "s1", name: "terminal", args: { command: "sleep 0.4" } }), reply().text("done"), reply().text("queued ran"));
    const running = prompt(h, sessionId, "work");
    await h.peer.waitFor((m) => ((m.params as Json | undefined)?.update as Json | undefined)?.status === "in_progress");
    const steer = await prompt(h, sessionId, "/steer use the fast path");
    expect(steer.result).toEqual({ stopReason: "end_turn" });
    expect(JSON.stringify(h.peer.updates(sessionId))).toContain("Steer queued for the active turn: use the fast path");
    const q = await prompt(h, sessionId, "/queue then summarise");
    expect(q.result).toEqual({ stopReason: "end_turn" });
    expect((await running).result).toEqual({ stopReason: "end_turn" });
    expect(JSON.stringify(llm.requests[1]!.messages)).toContain("use the fast path");
    await h.peer.waitFor((m) => JSON.stringify(m).includes("queued ran"));
    expect(JSON.stringify(llm.requests[2]!.messages)).toContain("then summarise");
  });

  test("two sessions run concurrently without sharing cwd or history", async () => {
    const h = await start();
    const s1 = await session(h);
    const s2 = await session(h);
    llm.enqueue(reply().text("A").delay(100), reply().text("B").delay(100));
    await Promise.all([prompt(h, s1.sessionId, "from one"), prompt(h, s2.sessionId, "from two")]);
    const systems = llm.requests.map((r) => String((r.messages as Json[])[0]!.content));
    expect(systems.some((s) => s.includes(s1.cwd))).toBe(true);
    expect(systems.some((s) => s.includes(s2.cwd))).toBe(true);
    for (const r of llm.requests) {
      const text = JSON.stringify(r.messages);
      expect(text.includes("from one") && text.includes("from two")).toBe(false);
    }
  });
});
