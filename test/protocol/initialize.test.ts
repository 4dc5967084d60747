import { afterEach, describe, expect, test } from "bun:test";
import { fakeProviderConfig, INIT, startHarness, type Harness } from "../helpers/harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("initialize", () => {
  test("answers protocol 1 with our identity and capabilities; only the terminal setup method on a fresh machine", async () => {
    h = await startHarness();
    const r = await h.peer.call("initialize", { ...INIT, protocolVersion: 7 });
    expect(r.protocolVersion).toBe(1);
    expect(r.agentInfo).toMatchObject({ name: "hermes-acp", title: "Hermes" });
    expect(typeof (r.agentInfo as { version: string }).version).toBe("string");
    expect(r.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, fork: {} },
    });
    expect(r.authMethods).toEqual([
      {
        id: "hermes-setup",
        name: "Configure Hermes provider",
        description:
          "Open Hermes' interactive model/provider setup in a terminal. Use this when Hermes has not been configured on this machine yet.",
        type: "terminal",
        args: ["--setup"],
      },
    ]);
  });

  test("advertises the detected provider's credential method first", async () => {
    h = await startHarness({ env: { OPENROUTER_API_KEY: "sk-or-test-1234567890" } });
    const r = await h.peer.call("initialize", INIT);
    const ids = (r.authMethods as { id: string }[]).map((m) => m.id);
    expect(ids).toEqual(["openrouter", "hermes-setup"]);
  });

  test("authenticate succeeds for the detected provider (case-insensitive) and fails with a real error otherwise", async () => {
    h = await startHarness({ env: { OPENROUTER_API_KEY: "sk-or-test-1234567890" } });
    await h.peer.call("initialize", INIT);
    expect((await h.peer.request("authenticate", { methodId: "OpenRouter" })).result).toEqual({});
    expect((await h.peer.request("authenticate", { methodId: "hermes-setup" })).result).toEqual({});
    const bad = await h.peer.request("authenticate", { methodId: "totally-invalid-method" });
    expect(bad.error?.code).toBe(-32000);
  });

  test("authenticate without any credential is an error, not {}", async () => {
    h = await startHarness();
    await h.peer.call("initialize", INIT);
    const r = await h.peer.request("authenticate", { methodId: "hermes-setup" });
    expect(r.error?.code).toBe(-32000);
    expect(r.error?.message).toContain("--setup");
  });

  test("liveness probes and unknown methods get -32601 and the connection lives on", async () => {
    h = await startHarness();
    await h.peer.call("initialize", INIT);
    for (const method of ["ping", "health", "healthcheck", "_hermes/unknown", "session/set_model_x"]) {
      const r = await h.peer.request(method, {});
      expect(r.error?.code).toBe(-32601);
    }
    expect((await h.peer.request("session/list", {})).result).toBeDefined();
  });

  test("requests before initialize are rejected with -32600", async () => {
    h = await startHarness({ config: fakeProviderConfig("http://127.0.0.1:9/v1") });
    const r = await h.peer.request("session/new", { cwd: "/tmp", mcpServers: [] });
    expect(r.error?.code).toBe(-32600);
  });
});

describe("malformed traffic before and at initialize", () => {
  test("bad initialize params, non-requests and bad ids get JSON-RPC errors; relative cwds are refused", async () => {
    h = await startHarness({ config: fakeProviderConfig("http://127.0.0.1:9/v1") });
    expect((await h.peer.request("initialize", 5)).error?.code).toBe(-32602);
    expect((await h.peer.request("initialize", { protocolVersion: "x" })).error?.code).toBe(-32602);
    h.peer.sendRaw("{}");
    h.peer.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: { bad: 1 }, method: "session/new", params: {} }));
    await h.peer.waitFor((m) => (m.error as { message?: string } | undefined)?.message?.includes("the id must be") === true);
    await h.peer.waitFor((m) => (m.error as { message?: string } | undefined)?.message?.includes("string method") === true);
    expect((await h.peer.request("initialize", INIT)).result).toBeDefined();
    const rel = await h.peer.request("session/new", { cwd: "relative/dir", mcpServers: [] });
    expect(rel.error?.code).toBe(-32602);
    expect(rel.error?.message).toContain("absolute");
  });
});
