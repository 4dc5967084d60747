// Issue #10 — provider faults: 429 then success, 500 until retries are exhausted, a disconnect mid-stream,
// a hung stream (idle timeout), malformed SSE. Each turn ends (end_turn) with a clear message and an
// error notice, the stored history keeps exactly the completed messages, and the next turn works.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { fakeProviderConfig, INIT, startHarness, tempDir, type Harness } from "../helpers/harness.ts";
import { reply, startFakeLlm, type FakeLlmServer, type ReplyBuilder } from "../helpers/fake-llm-server.ts";
import type { Json } from "../helpers/rpc-peer.ts";
import { agentText, textPrompt } from "./common.ts";

const FAST = { HERMES_ACP_IDLE_TIMEOUT_MS: "300", HERMES_ACP_REQUEST_TIMEOUT_MS: "3000", HERMES_ACP_MAX_RETRIES: "2", HERMES_ACP_RETRY_BASE_MS: "10" };

// A fresh server per test: a fault that consumes fewer replies than scripted must not leak into the next test.
let llm: FakeLlmServer;
let h: Harness | undefined;
beforeEach(async () => {
  llm = await startFakeLlm();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await llm.stop();
});

async function open(): Promise<{ h: Harness; sessionId: string }> {
  h = await startHarness({ config: fakeProviderConfig(llm.url), env: FAST });
  await h.peer.call("initialize", { ...INIT, clientCapabilities: { session: { notices: {} } } });
  const sessionId = String((await h.peer.call("session/new", { cwd: tempDir(), mcpServers: [] })).sessionId);
  return { h, sessionId };
}

const stored = (h: Harness, sessionId: string) =>
  h.services.store().loadMessages(sessionId).map((m) => `${m.message.role}:${typeof m.message.content === "string" ? m.message.content : ""}`);

/** Runs one prompt against scripted replies; returns its stop reason, what the user read, the notices and the time. */
async function turn(h: Harness, sessionId: string, text: string, replies: ReplyBuilder[]) {
  llm.enqueue(...replies);
  const textBefore = agentText(h.peer, sessionId).length;
  const noticesBefore = h.peer.updates(sessionId).filter((u) => u.sessionUpdate === "notice").length;
  const t0 = performance.now();
  const r = await h.peer.request("session/prompt", textPrompt(sessionId, text), 20_000);
  return {
    stopReason: r.result?.stopReason,
    error: r.error,
    shown: agentText(h.peer, sessionId).slice(textBefore),
    notices: h.peer.updates(sessionId).filter((u) => u.sessionUpdate === "notice").slice(noticesBefore) as Json[],
    ms: performance.now() - t0,
  };
}

type Case = { name: string; replies: () => ReplyBuilder[]; clear: RegExp; partial?: string };
const FAULTS: Case[] = [
  { name: "500 until retries are exhausted", replies: () => [0, 1, 2].map(() => reply().status(500, { message: "upstream exploded" })), clear: /500|upstream exploded|server/i },
  { name: "disconnect mid-stream", replies: () => [reply().text("half an ans").disconnectAfter(2)], clear: /connection|disconnect|closed|terminated|reset|network|stream/i, partial: "half an ans" },
  { name: "hung stream (idle timeout)", replies: () => [reply().text("start of it").hang()], clear: /timed? ?out|idle|no data|stalled/i, partial: "start of it" },
  { name: "malformed SSE", replies: () => [reply().delay(30).text("fine so far").malformed()], clear: /malformed|invalid|json|parse|unexpected/i, partial: "fine so far" },
  { name: "malformed SSE before any text", replies: () => [reply().malformed()], clear: /malformed|invalid|json|parse|unexpected/i },
  { name: "401 (not retryable)", replies: () => [reply().status(401, { message: "bad key" })], clear: /401|auth|bad key|unauthori[sz]ed/i },
];

describe("provider faults", () => {
  test("429 with Retry-After then success: one turn, answered, a retry notice, history intact", async () => {
    const { h, sessionId } = await open();
    const r = await turn(h, sessionId, "first", [reply().status(429, { retryAfter: 0 }), reply().text("after retry")]);
    expect(r.stopReason).toBe("end_turn");
    expect(r.shown).toBe("after retry");
    expect(r.notices.some((n) => n.severity === "warning")).toBe(true);
    expect(stored(h, sessionId)).toEqual(["user:first", "assistant:after retry"]);
  });

  test("hung before any output: retried after the idle timeout, then answered", async () => {
    const { h, sessionId } = await open();
    const r = await turn(h, sessionId, "first", [reply().hang(), reply().text("second try")]);
    expect(r.stopReason).toBe("end_turn");
    expect(r.shown).toBe("second try");
    expect(r.ms).toBeLessThan(3000);
    expect(stored(h, sessionId)).toEqual(["user:first", "assistant:second try"]);
  });

  for (const c of FAULTS) {
    test(`${c.name}: the turn ends with a clear message; history intact; the next turn works`, async () => {
      const { h, sessionId } = await open();
      await turn(h, sessionId, "before", [reply().text("ok before")]);
      const r = await turn(h, sessionId, "faulty", c.replies());
      expect({ stopReason: r.stopReason, error: r.error }).toEqual({ stopReason: "end_turn", error: undefined });
      expect(r.ms).toBeLessThan(5000);
      // The user reads what went wrong, after whatever partial text had streamed.
      if (c.partial) expect(r.shown).toStartWith(c.partial);
      const warning = r.shown.slice(c.partial?.length ?? 0);
      expect(warning).toContain("⚠️");
      expect(warning).toMatch(c.clear);
      expect(r.notices.filter((n) => n.severity === "error").map((n) => String(n.description))).toEqual([expect.stringMatching(c.clear)]);

      const next = await turn(h, sessionId, "after", [reply().text("ok after")]);
      expect(next.stopReason).toBe("end_turn");
      expect(next.shown).toBe("ok after");
      // Only completed messages are kept: the failed turn leaves its prompt, never a half answer.
      expect(stored(h, sessionId)).toEqual(["user:before", "assistant:ok before", "user:faulty", "user:after", "assistant:ok after"]);
      const sent = (llm.requests.at(-1)!.messages as Json[]).slice(1).map((m) => `${String(m.role)}:${String(m.content)}`);
      expect(sent).toEqual(["user:before", "assistant:ok before", "user:faulty", "user:after"]);
    });
  }
});
