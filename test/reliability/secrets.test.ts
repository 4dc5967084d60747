// Issue #10 — secrets: after a run with a key configured (used, echoed back by provider errors, logged at
// debug level), the key appears nowhere in stderr, stdout, state.db (and its WAL), the LLM recording or
// any other file the agent wrote.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { INIT, tempDir, writeHome } from "../helpers/harness.ts";
import { reply, startFakeLlm, type FakeLlmServer } from "../helpers/fake-llm-server.ts";
import { runCommand, spawnAgent } from "../helpers/spawn-agent.ts";
import type { Json } from "../helpers/rpc-peer.ts";
import { agentCommand, agentEnv, ROOT, textPrompt } from "./common.ts";

let llm: FakeLlmServer;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(() => llm.stop());

/** Every regular file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) out.push(...filesUnder(path));
    else if (st.isFile()) out.push(path);
  }
  return out;
}

// A key with no well-known prefix: only masking by value (not by shape) can hide it.
const KEY = `hk${crypto.randomUUID().replace(/-/g, "")}Zq`;

describe("secrets", () => {
  test("a configured key is used but never written to stderr, stdout, state.db, the recording or other files", async () => {
    const home = join(tempDir(), "hermes");
    writeHome(home, {
      config: `model:\n  provider: custom\n  base_url: ${llm.url}\n  default: fake-model\n`,
      env: `OPENAI_API_KEY=${KEY}\n`,
    });
    const cwd = tempDir();
    const recording = join(tempDir(), "recording.json");
    const env = agentEnv(home, {
      HERMES_ACP_LOG_LEVEL: "debug",
      HERMES_YOLO_MODE: "1",
      HERMES_ACP_LLM_RECORD: recording,
      HERMES_ACP_MAX_RETRIES: "1",
      HERMES_ACP_RETRY_BASE_MS: "10",
    });
    const agent = spawnAgent(agentCommand(), env, ROOT);
    try {
      await agent.peer.call("initialize", { ...INIT, clientCapabilities: { session: { notices: {} } } });
      const sessionId = String((await agent.peer.call("session/new", { cwd, mcpServers: [] })).sessionId);
      const run = async (text: string) => (await agent.peer.request("session/prompt", textPrompt(sessionId, text), 20_000)).result;

      llm.enqueue(reply().text("plain answer"));
      expect(await run("hello")).toEqual({ stopReason: "end_turn" });
      // The key really is configured and sent.
      expect(llm.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);

      // Providers echo keys in errors (OpenAI: "Incorrect API key provided: …"): retried, then fatal.
      llm.enqueue(reply().status(429, { retryAfter: 0, message: `Rate limited for key ${KEY}` }), reply().status(401, { message: `Incorrect API key provided: ${KEY}` }));
      expect(await run("again")).toEqual({ stopReason: "end_turn" });
      llm.enqueue(reply().status(500, { message: `internal error for ${KEY}` }), reply().status(500, { message: `internal error for ${KEY}` }));
      expect(await run("once more")).toEqual({ stopReason: "end_turn" });

      llm.enqueue(reply().toolCall({ id: "t_echo", name: "terminal", args: { command: "echo tool ran" } }), reply().text("done"));
      expect(await run("run a tool")).toEqual({ stopReason: "end_turn" });
      expect(JSON.stringify(agent.peer.updates(sessionId))).toContain("tool ran");

      // The user was told what failed, without the key.
      const shown = JSON.stringify(agent.peer.updates(sessionId));
      expect(shown).toMatch(/401|Incorrect API key/);

      agent.closeStdin();
      expect(await agent.proc.exited).toBe(0);
    } finally {
      agent.proc.kill(9);
    }

    const where: string[] = [];
    if ((await agent.stderr()).includes(KEY)) where.push("stderr");
    if (agent.peer.rawLines.some((l) => l.includes(KEY))) where.push("stdout");
    for (const file of [...filesUnder(home).filter((f) => !f.endsWith("/.env")), ...filesUnder(cwd), recording]) {
      if (readFileSync(file).includes(KEY)) where.push(file.replace(home, "$HERMES_HOME"));
    }
    expect(where).toEqual([]);
    expect(filesUnder(home).some((f) => f.endsWith("state.db"))).toBe(true);
  }, 30_000);

  test("--check reports the configured key masked", async () => {
    const home = join(tempDir(), "hermes");
    writeHome(home, { config: `model:\n  provider: custom\n  base_url: ${llm.url}\n  default: fake-model\n`, env: `OPENAI_API_KEY=${KEY}\n` });
    const r = await runCommand([...agentCommand(), "--check"], { env: agentEnv(home, { HERMES_ACP_LOG_LEVEL: "debug" }), cwd: ROOT });
    const out = `${r.stdout}\n${r.stderr}`;
    expect(out).not.toContain(KEY);
    expect(out.length).toBeGreaterThan(0);
  });

  // Finding (see report): commands the agent runs inherit the provider key from ~/.hermes/.env, so a model
  // that runs `env` or `printenv` puts the key into the tool result, the transcript and state.db.
  test("commands the agent runs do not see the provider key", async () => {
    const home = join(tempDir(), "hermes");
    writeHome(home, { config: `model:\n  provider: custom\n  base_url: ${llm.url}\n  default: fake-model\n`, env: `OPENAI_API_KEY=${KEY}\n` });
    const agent = spawnAgent(agentCommand(), agentEnv(home, { HERMES_YOLO_MODE: "1" }), ROOT);
    try {
      await agent.peer.call("initialize", INIT);
      const sessionId = String((await agent.peer.call("session/new", { cwd: tempDir(), mcpServers: [] })).sessionId);
      llm.enqueue(reply().toolCall({ id: "t_env", name: "terminal", args: { command: 'printenv OPENAI_API_KEY; echo "exit=$?"' } }), reply().text("ok"));
      await agent.peer.request("session/prompt", textPrompt(sessionId, "env"), 20_000);
      const sent = llm.requests.at(-1)!.messages as Json[];
      const result = String(sent.find((m) => m.role === "tool" && m.tool_call_id === "t_env")?.content ?? "");
      expect(result).toContain("exit=");
      expect(result).not.toContain(KEY);
    } finally {
      agent.proc.kill(9);
    }
  }, 20_000);
});
