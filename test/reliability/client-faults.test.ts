// Issue #10 — client faults: a client that never answers a permission request, answers it with garbage,
// or closes stdin in the middle of a turn (the process exits and its child process groups are gone).
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeProviderConfig, INIT, startHarness, tempDir, writeHome } from "../helpers/harness.ts";
import { reply } from "../helpers/fake-llm-server.ts";
import { fakeLlmSuite } from "../helpers/suite.ts";
import { spawnAgent } from "../helpers/spawn-agent.ts";
import { NO_ANSWER, type Json } from "../helpers/rpc-peer.ts";
import { agentCommand, agentEnv, groupAlive, killGroup, ROOT, textPrompt, until } from "./common.ts";

const suite = fakeLlmSuite();

async function open(extraConfig = "") {
  const h = await startHarness({ config: fakeProviderConfig(suite.llm.url, extraConfig) });
  suite.track(h);
  await h.peer.call("initialize", INIT);
  const cwd = tempDir();
  const sessionId = String((await h.peer.call("session/new", { cwd, mcpServers: [] })).sessionId);
  return { h, cwd, sessionId };
}

/** The tool result the model was sent for `callId` (the last request carrying it). */
function toolResultSent(callId: string): string {
  for (const r of [...suite.llm.requests].reverse()) {
    const m = (r.messages as Json[]).find((x) => x.role === "tool" && x.tool_call_id === callId);
    if (m) return String(m.content);
  }
  return "";
}

describe("client faults", () => {
  test("a permission request never answered: denied after approvals.timeout, the turn finishes, the file is untouched", async () => {
    const { h, cwd, sessionId } = await open("approvals:\n  timeout: 0.5\n");
    writeFileSync(join(cwd, "a.txt"), "old\n");
    h.peer.onRequest("session/request_permission", () => NO_ANSWER);
    suite.llm.enqueue(reply().toolCall({ id: "w_silent", name: "write_file", args: { path: "a.txt", content: "new\n" } }), reply().text("understood"));
    const t0 = performance.now();
    const r = await h.peer.request("session/prompt", textPrompt(sessionId, "write it"), 10_000);
    expect(r.result).toEqual({ stopReason: "end_turn" });
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("old\n");
    expect(h.peer.updates(sessionId).find((u) => u.toolCallId === "w_silent" && u.status === "failed")).toBeDefined();
    expect(toolResultSent("w_silent")).toMatch(/no answer|timed? ?out|not modified/i);
    // The session is still usable afterwards.
    suite.llm.enqueue(reply().text("still here"));
    expect((await h.peer.request("session/prompt", textPrompt(sessionId, "ping"))).result).toEqual({ stopReason: "end_turn" });
  });

  const GARBAGE: [string, () => unknown][] = [
    ["a string", () => "garbage"],
    ["a number", () => 42],
    ["null", () => null],
    ["an empty object", () => ({})],
    ["an outcome without an option", () => ({ outcome: { outcome: "selected" } })],
    ["an option that was never offered", () => ({ outcome: { outcome: "selected", optionId: "yes_please" } })],
    ["a numeric option id", () => ({ outcome: { outcome: "selected", optionId: 1 } })],
    ["a flat outcome", () => ({ outcome: "selected", optionId: "allow_once" })],
    ["an error response", () => {
      throw new Error("client blew up");
    }],
  ];
  for (const [name, answer] of GARBAGE) {
    test(`a permission answered with ${name}: denied, nothing runs, the turn and the session go on`, async () => {
      const { h, cwd, sessionId } = await open();
      h.peer.onRequest("session/request_permission", answer);
      const id = `garbage_${name.replace(/\W+/g, "_")}`;
      suite.llm.enqueue(reply().toolCall({ id, name: "terminal", args: { command: "rm -rf victim" } }), reply().text("ok, not deleting"));
      const victim = join(cwd, "victim");
      writeFileSync(victim, "keep me");
      const r = await h.peer.request("session/prompt", textPrompt(sessionId, "delete it"), 10_000);
      expect(r.result).toEqual({ stopReason: "end_turn" });
      expect(existsSync(victim)).toBe(true);
      expect(toolResultSent(id)).toStartWith("BLOCKED");
      expect(h.peer.updates(sessionId).find((u) => u.toolCallId === id && u.status === "failed")).toBeDefined();
      suite.llm.enqueue(reply().text("fine"));
      expect((await h.peer.request("session/prompt", textPrompt(sessionId, "next"))).result).toEqual({ stopReason: "end_turn" });
    });
  }

  test("stdin closed mid-turn: the process exits within ~1 s and its foreground and background process groups are gone", async () => {
    const home = join(tempDir(), "hermes");
    writeHome(home, { config: fakeProviderConfig(suite.llm.url) });
    const cwd = tempDir();
    const agent = spawnAgent(agentCommand(), agentEnv(home, { HERMES_YOLO_MODE: "1" }), ROOT);
    const pgids: number[] = [];
    try {
      await agent.peer.call("initialize", INIT);
      const sessionId = String((await agent.peer.call("session/new", { cwd, mcpServers: [] })).sessionId);
      suite.llm.enqueue(
        reply().toolCall({ id: "bg_1", name: "terminal", args: { command: "echo $$ > bg.pgid; sleep 30", background: true } }),
        reply().toolCall({ id: "fg_1", name: "terminal", args: { command: "echo $$ > fg.pgid; sleep 30" } }),
      );
      void agent.peer.request("session/prompt", textPrompt(sessionId, "run both"), 60_000).catch(() => undefined);
      const files = ["bg.pgid", "fg.pgid"].map((f) => join(cwd, f));
      expect(await until(() => files.every((f) => existsSync(f) && readFileSync(f, "utf8").trim() !== ""), 10_000)).toBe(true);
      pgids.push(...files.map((f) => Number(readFileSync(f, "utf8").trim())));
      expect(pgids.map((g) => groupAlive(g))).toEqual([true, true]);

      const t0 = performance.now();
      agent.closeStdin();
      const exited = await Promise.race([agent.proc.exited, Bun.sleep(3000).then(() => "still running")]);
      const exitMs = performance.now() - t0;
      expect(exited).toBe(0);
      expect(exitMs).toBeLessThan(1500);
      expect(await until(() => pgids.every((g) => !groupAlive(g)), 500)).toBe(true);
    } finally {
      agent.proc.kill(9);
      for (const g of pgids) killGroup(g);
    }
  }, 20_000);
});
