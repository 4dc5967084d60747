import { describe, expect, test } from "bun:test";
import { fakeProviderConfig, INIT, startHarness, tempDir } from "../helpers/harness.ts";
import type { Json } from "../helpers/rpc-peer.ts";
import { reply } from "../helpers/fake-llm-server.ts";
import { fakeLlmSuite } from "../helpers/suite.ts";

const suite = fakeLlmSuite();

async function start() {
  const h = await startHarness({ config: fakeProviderConfig(suite.llm.url), env: { HERMES_ACP_MODEL_REFRESH: "on" } });
  suite.track(h);
  await h.peer.call("initialize", INIT);
  const r = await h.peer.call("session/new", { cwd: tempDir(), mcpServers: [] });
  return { h, r, sessionId: r.sessionId as string };
}

describe("models and options", () => {
  test("the picker lists the provider's live models after a refresh, and falls back quietly when the models endpoint is down", async () => {
    suite.llm.models = ["fake-model", "live-a", "live-b"];
    suite.llm.modelsFailure = null;
    const { h, sessionId } = await start();
    const update = await h.peer.waitFor((m) => ((m.params as Json | undefined)?.update as Json | undefined)?.sessionUpdate === "config_option_update");
    const picker = (((update.params as Json).update as Json).configOptions as Json[]).find((o) => o.id === "model")!;
    const values = (picker.options as Json[]).flatMap((g) => (g.options as Json[]).map((o) => o.value));
    expect(values).toContain("custom:live-a");
    expect(values[0]).toBe("custom:fake-model");

    suite.llm.modelsFailure = 500;
    const h2 = await startHarness({ config: fakeProviderConfig(suite.llm.url) });
    suite.track(h2);
    await h2.peer.call("initialize", INIT);
    const r2 = await h2.peer.call("session/new", { cwd: tempDir(), mcpServers: [] });
    const picker2 = (r2.configOptions as Json[]).find((o) => o.id === "model")!;
    expect(JSON.stringify(picker2)).toContain("custom:fake-model");
    await Bun.sleep(200);
    expect(h2.peer.received.some((m) => "error" in m)).toBe(false);
    suite.llm.modelsFailure = null;
    void sessionId;
  });

  test("responses carry the legacy models state too; session/set_model switches the next request's model and persists", async () => {
    const { h, r, sessionId } = await start();
    expect(r.models).toMatchObject({ currentModelId: "custom:fake-model" });
    expect(await h.peer.call("session/set_model", { sessionId, modelId: "custom:legacy-pick" })).toEqual({});
    suite.llm.enqueue(reply().text("ok"));
    await h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "x" }] });
    expect(suite.llm.requests.at(-1)!.model).toBe("legacy-pick");
    const h2 = await startHarness({ config: fakeProviderConfig(suite.llm.url), home: h.home });
    suite.track(h2);
    await h2.peer.call("initialize", INIT);
    const resumed = await h2.peer.call("session/resume", { sessionId, cwd: tempDir() });
    expect((resumed.configOptions as Json[]).find((o) => o.id === "model")).toMatchObject({ currentValue: "custom:legacy-pick" });
    expect((await h.peer.request("session/set_model", { sessionId })).error?.code).toBe(-32602);
  });

  test("thinking level is a config option with category thought_level; it reaches the provider as reasoning_effort", async () => {
    const { h, r, sessionId } = await start();
    const thinking = (r.configOptions as Json[]).find((o) => o.id === "thought_level");
    expect(thinking).toMatchObject({ category: "thought_level", currentValue: "default" });
    const set = await h.peer.call("session/set_config_option", { sessionId, configId: "thought_level", value: "high" });
    expect((set.configOptions as Json[]).find((o) => o.id === "thought_level")).toMatchObject({ currentValue: "high" });
    suite.llm.enqueue(reply().text("ok"));
    await h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "x" }] });
    expect((suite.llm.requests.at(-1)!.body as Json).reasoning_effort).toBe("high");
    expect((await h.peer.request("session/set_config_option", { sessionId, configId: "thought_level", value: "extreme" })).error?.code).toBe(-32602);
  });
});
