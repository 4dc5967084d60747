import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { INIT, startHarness, tempDir } from "../helpers/harness.ts";
import type { Json } from "../helpers/rpc-peer.ts";
import { reply, startFakeLlm, type FakeLlmServer } from "../helpers/fake-llm-server.ts";
import { fakeLlmSuite } from "../helpers/suite.ts";

const suite = fakeLlmSuite();
let backup: FakeLlmServer;
beforeAll(async () => {
  backup = await startFakeLlm();
});
afterAll(() => backup.stop());

describe("fallback_providers", () => {
  test("a provider that keeps failing hands the turn to the fallback; the session follows it and says so", async () => {
    const config = [
      "model:",
      "  provider: custom",
      `  base_url: ${suite.llm.url}`,
      "  default: primary-model",
      "providers:",
      "  backup:",
      `    base_url: ${backup.url}`,
      "    default_model: backup-model",
      "fallback_providers:",
      "  - custom:backup",
      "",
    ].join("\n");
    const h = suite.track(await startHarness({ config }));
    await h.peer.call("initialize", { ...INIT, clientCapabilities: { session: { notices: {} } } });
    const { sessionId } = (await h.peer.call("session/new", { cwd: tempDir(), mcpServers: [] })) as { sessionId: string };
    suite.llm.enqueue(reply().status(500), reply().status(500), reply().status(500));
    backup.enqueue(reply().text("answered by the backup"));
    const r = await h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(r.stopReason).toBe("end_turn");
    expect(backup.requests.at(-1)!.model).toBe("backup-model");
    const updates = h.peer.updates(sessionId);
    expect(JSON.stringify(updates)).toContain("answered by the backup");
    expect(updates.find((u) => u.sessionUpdate === "notice" && String(u.title).startsWith("Switched"))).toMatchObject({ severity: "warning", title: "Switched to custom:backup:backup-model" });
    const options = updates.find((u) => u.sessionUpdate === "config_option_update")!.configOptions as Json[];
    expect(options.find((o) => o.id === "model")).toMatchObject({ currentValue: "custom:backup:backup-model" });

    backup.enqueue(reply().text("still the backup"));
    await h.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "again" }] });
    expect(backup.requests.at(-1)!.model).toBe("backup-model");
  });
});
