import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeProviderConfig, INIT, tempDir, writeHome } from "../helpers/harness.ts";
import { reply, startFakeLlm, type FakeLlmServer } from "../helpers/fake-llm-server.ts";
import { runCommand, spawnAgent } from "../helpers/spawn-agent.ts";
import type { Json } from "../helpers/rpc-peer.ts";

const root = join(import.meta.dir, "../..");
const binary = join(root, "dist/hermes-acp");
const commands: [string, string[]][] = [["bun run start", ["bun", "run", "start"]]];
if (existsSync(binary)) commands.push(["compiled binary", [binary]]);

let llm: FakeLlmServer;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(() => llm.stop());

function isolatedEnv(home: string): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, HERMES_HOME: home, HERMES_ACP_LOG_LEVEL: "info" };
  return env;
}

describe.each(commands)("%s", (_name, cmd) => {
  test("speaks only JSON-RPC on stdout through a whole turn, then exits promptly on EOF", async () => {
    const home = join(tempDir(), "hermes");
    writeHome(home, { config: fakeProviderConfig(llm.url), env: "OPENROUTER_API_KEY=sk-or-secret-should-never-leak-123\n" });
    const agent = spawnAgent(cmd, isolatedEnv(home), root);
    const init = await agent.peer.call("initialize", INIT);
    expect(init.protocolVersion).toBe(1);
    const cwd = tempDir();
    const { sessionId } = (await agent.peer.call("session/new", { cwd, mcpServers: [] })) as { sessionId: string };
    llm.enqueue(reply().reasoning("thinking").text("hello from the fake model"));
    const r = await agent.peer.call("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(r.stopReason).toBe("end_turn");
    agent.peer.sendRaw("this is not json");
    const parseError = await agent.peer.waitFor((m) => (m.error as Json | undefined)?.code === -32700);
    expect(parseError.id).toBeNull();
    expect((await agent.peer.request("ping", {})).error?.code).toBe(-32601);

    const t0 = performance.now();
    agent.closeStdin();
    const code = await agent.proc.exited;
    const exitMs = performance.now() - t0;
    expect(code).toBe(0);
    expect(exitMs).toBeLessThan(1000);
    // every line the agent wrote parsed as JSON-RPC 2.0 (RpcPeer throws otherwise)
    expect(agent.peer.rawLines.every((l) => JSON.parse(l).jsonrpc === "2.0")).toBe(true);
    // The command list follows the session/new response (sent before it, Zed shows no commands).
    const lines = agent.peer.rawLines.map((l) => JSON.parse(l) as { result?: Json; params?: { update?: Json } });
    const responseAt = lines.findIndex((m) => m.result?.sessionId === sessionId);
    const commandsAt = lines.findIndex((m) => m.params?.update?.sessionUpdate === "available_commands_update");
    expect(responseAt).toBeGreaterThanOrEqual(0);
    expect(commandsAt).toBeGreaterThan(responseAt);
    const stderr = await agent.stderr();
    expect(stderr).not.toContain("sk-or-secret-should-never-leak-123");
    expect(stderr).not.toContain("Background task failed");
  });

  test("requests piped in from a file are answered, and the agent exits at the end of it", async () => {
    const home = join(tempDir(), "hermes");
    writeHome(home, { config: fakeProviderConfig(llm.url) });
    const lines = [
      { jsonrpc: "2.0", id: 0, method: "initialize", params: INIT },
      { jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: tempDir(), mcpServers: [] } },
      { jsonrpc: "2.0", id: 2, method: "session/list", params: {} },
    ];
    const input = join(tempDir(), "requests.jsonl");
    writeFileSync(input, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const proc = Bun.spawn(cmd, { env: isolatedEnv(home), cwd: root, stdin: Bun.file(input), stdout: "pipe", stderr: "pipe" });
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    const answers = stdout.trim().split("\n").map((l) => JSON.parse(l) as Json).filter((m) => "id" in m && !("method" in m));
    expect(answers.map((m) => [m.id, "result" in m])).toEqual([[0, true], [1, true], [2, true]]);
  });

  test("the registry's launch form `hermes-acp acp` serves ACP too; --help describes the flags", async () => {
    const home = join(tempDir(), "hermes");
    const agent = spawnAgent([...cmd, "acp"], isolatedEnv(home), root);
    expect((await agent.peer.call("initialize", INIT)).protocolVersion).toBe(1);
    agent.closeStdin();
    expect(await agent.proc.exited).toBe(0);
    const help = await runCommand([...cmd, "--help"], { env: isolatedEnv(home), cwd: root });
    expect(help.stdout + help.stderr).toContain("--check");
  });

  test("--version prints the version and --check reports problems with a non-zero exit", async () => {
    const home = join(tempDir(), "hermes");
    const v = await runCommand([...cmd, "--version"], { env: isolatedEnv(home), cwd: root });
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const bad = await runCommand([...cmd, "--check"], { env: isolatedEnv(home), cwd: root });
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stdout).toContain("Fix:");
    writeHome(home, { config: fakeProviderConfig(llm.url) });
    const ok = await runCommand([...cmd, "--check"], { env: isolatedEnv(home), cwd: root });
    expect(ok.stdout).toContain("OK");
    expect(ok.exitCode).toBe(0);
  });
});
