// Release smoke test for one compiled binary: `bun scripts/smoke.ts <path/to/hermes-acp> [expected-version]`.
// --version; --setup (non-interactive) then --check in a temp HERMES_HOME; an `initialize` round trip the way
// the ACP registry's CI does it (fresh HOME, TERM=dumb, first stdout line must be the response); exit on EOF.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const binary = resolve(process.argv[2] ?? "dist/hermes-acp");
const expectedVersion = process.argv[3]?.replace(/^v/, "");
const home = mkdtempSync(join(tmpdir(), "hermes-smoke-"));
const env = { ...process.env, HOME: home, USERPROFILE: home, HERMES_HOME: join(home, "hermes"), TERM: "dumb", HERMES_ACP_LOG_LEVEL: "warn" };

function fail(message: string): never {
  process.stderr.write(`smoke FAILED: ${message}\n`);
  process.exit(1);
}

async function run(args: string[], timeoutMs = 30_000): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn([binary, ...args], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: timeoutMs });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out, err };
}

const version = await run(["--version"]);
if (version.code !== 0 || !/^\d+\.\d+\.\d+/.test(version.out.trim())) fail(`--version: exit ${version.code}, "${version.out.trim()}" ${version.err}`);
if (expectedVersion && version.out.trim() !== expectedVersion) fail(`--version printed ${version.out.trim()}, expected ${expectedVersion}`);

// Port 9 (discard) is closed: setup's endpoint probe only warns, and --check never calls the model.
const setup = await run(["--setup", "--provider", "custom", "--base-url", "http://127.0.0.1:9/v1", "--model", "smoke-model"]);
if (setup.code !== 0) fail(`--setup: exit ${setup.code}\n${setup.out}${setup.err}`);
const check = await run(["--check"]);
if (check.code !== 0 || !check.out.includes("OK")) fail(`--check: exit ${check.code}\n${check.out}${check.err}`);

const agent = Bun.spawn([binary, "acp"], { env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
const initialize = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true, _meta: { terminal_output: true, "terminal-auth": true } } } };
agent.stdin.write(`${JSON.stringify(initialize)}\n`);
agent.stdin.flush();
const reader = agent.stdout.getReader();
let buffered = "";
const deadline = Date.now() + 20_000;
while (!buffered.includes("\n") && Date.now() < deadline) {
  const chunk = await Promise.race([reader.read(), Bun.sleep(deadline - Date.now()).then(() => undefined)]);
  if (!chunk || chunk.done) break;
  buffered += new TextDecoder().decode(chunk.value);
}
const first = buffered.split("\n")[0] ?? "";
let response: unknown;
try {
  response = JSON.parse(first);
} catch {
  agent.kill();
  fail(`first stdout line is not JSON-RPC: ${first.slice(0, 200)}`);
}
const result = typeof response === "object" && response !== null ? Reflect.get(response, "result") : undefined;
const authMethods = typeof result === "object" && result !== null ? Reflect.get(result, "authMethods") : undefined;
if (Reflect.get(result ?? {}, "protocolVersion") !== 1 || !Array.isArray(authMethods) || authMethods.length === 0) {
  agent.kill();
  fail(`unexpected initialize response: ${first.slice(0, 300)}`);
}
reader.releaseLock();
agent.stdin.end();
const exited = await Promise.race([agent.exited, Bun.sleep(10_000).then(() => "timeout" as const)]);
if (exited === "timeout") {
  agent.kill();
  fail("the agent did not exit within 10 s after stdin closed");
}
process.stderr.write(`smoke OK: ${binary} ${version.out.trim()} (--version, --setup, --check, initialize, exit on EOF)\n`);
process.exit(0); // pending race timers would keep the loop alive
