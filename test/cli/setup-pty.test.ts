// The interactive `--setup` once end to end through a real pseudo-terminal: util-linux `script` gives the child a
// pty, this test types keystrokes into it and reads the screen. Skipped where `script` is missing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfigText } from "../../src/config/load.ts";
import { PROVIDERS } from "../../src/llm/providers.ts";
import { startFakeLlm, type FakeLlmServer } from "../helpers/fake-llm-server.ts";

const SCRIPT = process.platform === "win32" ? null : Bun.which("script");
const MAIN = join(import.meta.dir, "../../src/main.ts");
const KEY = "sk-pty-test-key-0123456789";
const DOWN = "\u001b[B";
const ENTER = "\r";
const CTRL_C = "\u0003";
const WAIT_MS = 15_000;

/** Drops complete escape sequences, and a trailing incomplete one (its rest is still in flight). */
function screenText(raw: string): string {
  return raw
    .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")
    .replace(/\u001b\][^\u0007]*\u0007/g, "")
    .replace(/\u001b[^a-zA-Z]*$/, "");
}

class Pty {
  private raw = "";
  private seen = 0;
  private readonly proc: Bun.Subprocess<"pipe", "pipe", "ignore">;
  private readonly reading: Promise<void>;

  constructor(args: string, env: Record<string, string | undefined>) {
    // A pty opened by `script` from a pipe has no size; clack would wrap at column 0.
    const command = `stty cols 120 rows 60 2>/dev/null; exec '${process.execPath}' '${MAIN}' ${args}`;
    const proc = Bun.spawn([SCRIPT ?? "script", "-qfec", command, "/dev/null"], { env, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
    this.proc = proc;
    this.reading = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout) this.raw += decoder.decode(chunk, { stream: true });
    })();
  }

  get screen(): string {
    return screenText(this.raw);
  }

  /** Waits until `text` appears after everything already waited for; bounded so a stuck prompt fails fast. */
  async waitFor(text: string, timeoutMs = WAIT_MS): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const at = this.screen.indexOf(text, this.seen);
      if (at >= 0) {
        this.seen = at + text.length;
        await Bun.sleep(40); // let the prompt finish drawing and take raw mode before the next key
        return;
      }
      if (performance.now() > deadline || this.proc.exitCode !== null) {
        throw new Error(`timed out waiting for ${JSON.stringify(text)}; screen so far:\n${this.screen.slice(-2000)}`);
      }
      await Bun.sleep(20);
    }
  }

  send(keys: string): void {
    this.proc.stdin.write(keys);
    this.proc.stdin.flush();
  }

  async exit(timeoutMs = WAIT_MS): Promise<number> {
    const timer = setTimeout(() => this.proc.kill(), timeoutMs);
    const code = await this.proc.exited;
    clearTimeout(timer);
    this.proc.stdin.end();
    await this.reading;
    return code;
  }
}

type Step = { prompt: string; keys: string };

/** The whole wizard for a custom endpoint: arrows, typing a URL, a hidden key, "other…" and a typed model, a mode. */
function customEndpointFlow(url: string): Step[] {
  const toCustom = PROVIDERS.findIndex((p) => p.id === "custom");
  return [
    { prompt: "Model provider", keys: DOWN.repeat(toCustom) + ENTER },
    { prompt: "Base URL of the OpenAI-compatible endpoint", keys: url + ENTER },
    { prompt: "OPENAI_API_KEY (optional)", keys: KEY + ENTER },
    // fake-model (selected), fake-model-large, other…
    { prompt: "other…", keys: DOWN + DOWN + ENTER },
    { prompt: "Model name", keys: "fake-model-large" + ENTER },
    { prompt: "Default approval mode for new sessions", keys: DOWN + ENTER },
  ];
}

function listing(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  return Object.fromEntries(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name), "utf8")]));
}

describe.skipIf(SCRIPT === null)("hermes-acp --setup in a pseudo-terminal", () => {
  let llm: FakeLlmServer;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(() => llm.stop());

  const freshHome = () => join(mkdtempSync(join(tmpdir(), "hermes-pty-")), "home");
  function childEnv(home: string): Record<string, string | undefined> {
    // CI=true changes how clack draws; a real terminal user has neither it nor our log noise.
    const { CI: _ci, ...rest } = process.env;
    return { ...rest, HERMES_HOME: home, TERM: "xterm-256color", HERMES_ACP_LOG_LEVEL: "warn" };
  }

  test("the wizard writes .env (0600) and config.yaml, after which --check passes", async () => {
    const home = freshHome();
    const pty = new Pty("--setup", childEnv(home));
    for (const step of customEndpointFlow(llm.url)) {
      await pty.waitFor(step.prompt);
      pty.send(step.keys);
    }
    await pty.waitFor("Hermes ACP check OK");
    const code = await pty.exit();
    expect(code).toBe(0);
    expect(pty.screen).toContain("Hermes is set up");
    expect(pty.screen).toContain('"agent_servers"');
    expect(pty.screen).not.toContain(KEY);

    expect(readFileSync(join(home, ".env"), "utf8")).toBe(`OPENAI_API_KEY=${KEY}\n`);
    expect(statSync(join(home, ".env")).mode & 0o777).toBe(0o600);
    const config = parseConfigText(readFileSync(join(home, "config.yaml"), "utf8"), "config.yaml");
    if (!config.ok) throw new Error(config.error.message);
    expect(config.config.model).toEqual({ provider: "custom", default: "fake-model-large", base_url: llm.url });
    expect(config.config.acp.default_mode).toBe("accept_edits");

    const check = Bun.spawn([process.execPath, MAIN, "--check"], { env: childEnv(home), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [out, checkCode] = await Promise.all([new Response(check.stdout).text(), check.exited]);
    expect(checkCode).toBe(0);
    expect(out.trim().split("\n")).toHaveLength(1);
    expect(out).toStartWith("Hermes ACP check OK");
    expect(out).toContain("provider custom, model fake-model-large, key sk-p…89 from OPENAI_API_KEY; mode accept_edits");
  }, 60_000);

  test("Ctrl-C at the last step of a fresh setup exits 130 and creates nothing", async () => {
    const home = freshHome();
    const pty = new Pty("--setup", childEnv(home));
    const steps = customEndpointFlow(llm.url);
    for (const step of steps.slice(0, -1)) {
      await pty.waitFor(step.prompt);
      pty.send(step.keys);
    }
    await pty.waitFor(steps.at(-1)?.prompt ?? "");
    pty.send(CTRL_C);
    expect(await pty.exit()).toBe(130);
    expect(existsSync(home)).toBe(false);
  }, 60_000);

  const EXISTING_ENV = "# my keys\nOPENROUTER_API_KEY=sk-or-existing-0000000000\n";
  const EXISTING_CONFIG = "# shared with Hermes\nmodel:\n  provider: openrouter # mine\n  default: anthropic/claude-opus-4.6\nacp:\n  default_mode: dont_ask\n";
  const stepNames = ["provider", "base URL", "API key", "model", "model name"];

  test.each(stepNames.map((name, index) => [name, index] as const))("Ctrl-C at the %s step leaves existing settings untouched", async (_name, index) => {
    const home = freshHome();
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, ".env"), EXISTING_ENV, { mode: 0o600 });
    writeFileSync(join(home, "config.yaml"), EXISTING_CONFIG);
    const before = listing(home);
    const pty = new Pty("--setup", childEnv(home));
    const steps = customEndpointFlow(llm.url);
    for (const step of steps.slice(0, index)) {
      await pty.waitFor(step.prompt);
      pty.send(step.keys);
    }
    await pty.waitFor(steps[index]?.prompt ?? "");
    pty.send(CTRL_C);
    expect(await pty.exit()).toBe(130);
    expect(listing(home)).toEqual(before);
  }, 60_000);
});
