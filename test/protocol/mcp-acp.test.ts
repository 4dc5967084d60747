import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { fakeProviderConfig, INIT, startHarness, tempDir, type Harness } from "../helpers/harness.ts";
import type { Json } from "../helpers/rpc-peer.ts";
import { reply, startFakeLlm, type FakeLlmServer } from "../helpers/fake-llm-server.ts";
import { ECHO_SERVER } from "../mcp/helpers.ts";
import { startHttpMcpServer, type FixtureServer } from "../fixtures/mcp-http-server.ts";
import { pidAlive } from "../helpers/processes.ts";

let llm: FakeLlmServer;
let http: FixtureServer;
let harnesses: Harness[] = [];
beforeAll(async () => {
  llm = await startFakeLlm();
  http = startHttpMcpServer();
});
afterAll(async () => {
  await llm.stop();
  await http.close();
});
afterEach(async () => {
  for (const h of harnesses) await h.close();
  harnesses = [];
});


const stdioServer = { name: "echo", command: process.execPath, args: [ECHO_SERVER], env: [] };

async function start() {
  const h = await startHarness({ config: fakeProviderConfig(llm.url), env: { HERMES_YOLO_MODE: "1" } });
  harnesses.push(h);
  const init = await h.peer.call("initialize", INIT);
  return { h, init };
}

const prompt = (h: Harness, sessionId: string) => h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "use the tools" }] });

describe("MCP servers passed in session/new", () => {
  test("tools of a stdio and a streamable-HTTP server are offered and called; a crash fails the card, not the session; close stops the server", async () => {
    const { h, init } = await start();
    expect((init.agentCapabilities as Json).mcpCapabilities).toEqual({ http: true, sse: true });
    const { sessionId } = (await h.peer.call("session/new", {
      cwd: tempDir(),
      mcpServers: [stdioServer, { type: "http", name: "remote", url: http.url, headers: [{ name: "Authorization", value: "Bearer t0k" }] }],
    })) as { sessionId: string };

    llm.enqueue(
      reply().toolCall({ id: "m1", name: "mcp_echo_echo", args: { text: "hi", times: 2 } }).toolCall({ id: "m2", name: "mcp_remote_echo", args: { text: "remote!" } }),
      reply().toolCall({ id: "m3", name: "mcp_echo_now", args: {} }),
      reply().text("done"),
    );
    await prompt(h, sessionId);
    const tools = (llm.requests.at(-3)!.tools as Json[]).map((t) => (t.function as Json).name);
    expect(tools).toContain("mcp_echo_echo");
    expect(tools).toContain("mcp_remote_echo");
    const sent = llm.requests.at(-1)!.messages as Json[];
    const result = (id: string) => String(sent.find((m) => m.tool_call_id === id)?.content);
    expect(result("m1")).toContain("hihi");
    expect(result("m2")).toContain("remote!");
    const pid = Number(/pid (\d+)/.exec(result("m3"))?.[1]);
    expect(pidAlive(pid)).toBe(true);
    const card = h.peer.updates(sessionId).find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "m3");
    expect(card).toMatchObject({ kind: "read" });

    llm.enqueue(reply().toolCall({ id: "c1", name: "mcp_echo_crash", args: {} }), reply().text("after crash"));
    await prompt(h, sessionId);
    expect(h.peer.updates(sessionId).find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "c1" && u.status === "failed")).toBeDefined();
    llm.enqueue(reply().text("still usable"));
    expect((await prompt(h, sessionId)).stopReason).toBe("end_turn");
    await Bun.sleep(200);
    expect(pidAlive(pid)).toBe(false);

    const tools2 = await h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "/tools" }] });
    expect(tools2.stopReason).toBe("end_turn");
    expect(JSON.stringify(h.peer.updates(sessionId).at(-2))).toContain("MCP servers:");
  });

  test("closing the last session using a stdio server stops its process; a bad server never fails the session", async () => {
    const { h } = await start();
    // Sessions of one project share a stdio server (servers are keyed by their spec and cwd).
    const cwd = tempDir();
    const a = (await h.peer.call("session/new", { cwd, mcpServers: [stdioServer, { name: "broken", command: "/nonexistent/mcp", args: [], env: [] }] })) as { sessionId: string };
    const b = (await h.peer.call("session/new", { cwd, mcpServers: [stdioServer] })) as { sessionId: string };
    llm.enqueue(reply().toolCall({ id: "p1", name: "mcp_echo_now", args: {} }), reply().text("ok"));
    await prompt(h, a.sessionId);
    const sent = llm.requests.at(-1)!.messages as Json[];
    const pid = Number(/pid (\d+)/.exec(String(sent.find((m) => m.tool_call_id === "p1")?.content))?.[1]);
    expect(pid).toBeGreaterThan(0);
    await h.peer.call("session/close", { sessionId: a.sessionId });
    await Bun.sleep(100);
    expect(pidAlive(pid)).toBe(true);
    await h.peer.call("session/close", { sessionId: b.sessionId });
    for (let i = 0; i < 40 && pidAlive(pid); i++) await Bun.sleep(50);
    expect(pidAlive(pid)).toBe(false);
  });

  test("MCP tools without a read-only hint ask like commands (remembered per tool for the session); read-only ones do not", async () => {
    const h = await startHarness({ config: fakeProviderConfig(llm.url) });
    harnesses.push(h);
    await h.peer.call("initialize", INIT);
    const { sessionId } = (await h.peer.call("session/new", { cwd: tempDir(), mcpServers: [stdioServer] })) as { sessionId: string };
    const asked: Json[] = [];
    h.peer.onRequest("session/request_permission", (p) => {
      asked.push(p);
      return { outcome: { outcome: "selected", optionId: "allow_session" } };
    });
    llm.enqueue(
      reply().toolCall({ id: "q1", name: "mcp_echo_echo", args: { text: "a" } }),
      reply().toolCall({ id: "q2", name: "mcp_echo_echo", args: { text: "b" } }),
      reply().toolCall({ id: "q3", name: "mcp_echo_now", args: {} }),
      reply().text("ok"),
    );
    await prompt(h, sessionId);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.toolCall).toMatchObject({ toolCallId: "q1", kind: "execute" });
    expect(JSON.stringify(asked[0]!.toolCall)).toContain("echo/echo");
    expect((asked[0]!.options as Json[]).map((o) => o.optionId)).toEqual(["allow_once", "allow_session", "allow_always", "deny", "deny_always"]);
  });
});
