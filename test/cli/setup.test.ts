import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseDotEnv } from "dotenv";
import {
  applySetup,
  currentChoice,
  currentMode,
  editorSnippets,
  quoteEnvValue,
  setDefaultMode,
  setEnvVar,
  setModelConfig,
  validateAnswers,
} from "../../src/cli/setup-steps.ts";
import { parseConfigText } from "../../src/config/load.ts";
import { resolveRuntime } from "../../src/llm/resolve.ts";
import { startFakeLlm, type FakeLlmServer } from "../helpers/fake-llm-server.ts";

const EXISTING_CONFIG = `# Hermes settings (shared with the Python agent)
model:
  # which provider to use
  provider: openrouter # inline comment
  default: anthropic/claude-opus-4.6
  base_url: https://old.example/v1
  api_key: sk-or-old-key-in-config
  api_mode: chat_completions
  context_length: 131072
approvals:
  mode: manual # ask for everything
command_allowlist:
  - rm -rf build
`;

function plan(answers: Parameters<typeof applySetup>[0], envText = "", configText = "") {
  const result = applySetup(answers, { envText, configText });
  if (!result.ok) throw new Error(result.error);
  return result;
}

/** What the agent would run on with these files: the real loader and resolver. */
function runtimeOf(envText: string, configText: string) {
  const config = parseConfigText(configText, "config.yaml");
  if (!config.ok) throw new Error(config.error.message);
  const resolved = resolveRuntime({ config: config.config, env: parseDotEnv(envText) });
  if (!resolved.ok) throw new Error(resolved.error);
  return resolved.runtime;
}

describe("setEnvVar", () => {
  test.each([
    ["an empty file", "", "K=v\n"],
    ["a file without the key", "# keys\nA=1\n", "# keys\nA=1\nK=v\n"],
    ["a file without a final newline", "A=1", "A=1\nK=v\n"],
    ["an existing key", "# c\nK=old\nB=2\n", "# c\nK=v\nB=2\n"],
    ["an exported key", "export K=old\n", "export K=v\n"],
    ["duplicate keys (dotenv lets the last win)", "K=a\nX=1\nK=b\n", "K=v\nX=1\n"],
    ["a commented-out key", "# K=old\n", "# K=old\nK=v\n"],
    ["CRLF line endings", "A=1\r\nK=old\r\n", "A=1\r\nK=v\r\n"],
  ])("%s", (_label, before, after) => {
    expect(setEnvVar(before, "K", "v")).toBe(after);
  });

  test.each(["plain-key_123", "with space", "has#hash", "it's", `both ' and "`, "sk-or-v1-abc=="])("value %s reads back unchanged", (value) => {
    expect(parseDotEnv(`K=${quoteEnvValue(value)}\n`).K).toBe(value);
  });
});

describe("setModelConfig / applySetup", () => {
  test("an empty config gets a model mapping", () => {
    const p = plan({ provider: "custom", baseUrl: "http://127.0.0.1:9/v1", model: "m" });
    expect(p.files.configText).toBe("model:\n  provider: custom\n  default: m\n  base_url: http://127.0.0.1:9/v1\n");
  });

  test("the short form `model: name` becomes a mapping, other keys stay", () => {
    const p = plan({ provider: "anthropic", apiKey: "sk-ant-123", model: "claude-sonnet-4-6" }, "", "model: gpt-4\nmax_turns: 30\n");
    expect(p.files.configText).toBe("model:\n  provider: anthropic\n  default: claude-sonnet-4-6\nmax_turns: 30\n");
  });

  test("keeps comments and unrelated keys; switching provider drops the old endpoint, key and api_mode", () => {
    const p = plan({ provider: "anthropic", apiKey: "sk-ant-new", model: "claude-opus-4-6" }, "", EXISTING_CONFIG);
    const text = p.files.configText;
    for (const kept of ["# Hermes settings", "# which provider to use", "# inline comment", "context_length: 131072", "mode: manual # ask for everything", "- rm -rf build"]) {
      expect(text).toContain(kept);
    }
    expect(text).toContain("provider: anthropic # inline comment");
    expect(text).toContain("default: claude-opus-4-6");
    for (const gone of ["base_url", "api_key", "api_mode", "sk-or-old"]) expect(text).not.toContain(gone);
    expect(p.notes.join(" ")).toContain("model.base_url");
    expect(p.files.envText).toBe("ANTHROPIC_API_KEY=sk-ant-new\n");
    const runtime = runtimeOf(p.files.envText, text);
    expect(runtime).toMatchObject({ provider: "anthropic", model: "claude-opus-4-6", apiKey: "sk-ant-new", baseUrl: "https://api.anthropic.com" });
  });

  test("same provider without a new key keeps the configured key and api_mode", () => {
    const p = plan({ provider: "openrouter", model: "openai/gpt-5.4" }, "", EXISTING_CONFIG);
    expect(p.files.configText).toContain("api_key: sk-or-old-key-in-config");
    expect(p.files.configText).toContain("api_mode: chat_completions");
    expect(p.files.configText).not.toContain("base_url");
    expect(runtimeOf("", p.files.configText)).toMatchObject({ provider: "openrouter", model: "openai/gpt-5.4", apiKey: "sk-or-old-key-in-config" });
  });

  test("a new key replaces the one in .env and removes the config key that would shadow it", () => {
    const env = "# my keys\nOPENROUTER_API_KEY=sk-or-old\nGITHUB_TOKEN=ghp_x\n";
    const p = plan({ provider: "or", apiKey: "sk-or-new", model: "openai/gpt-5.4" }, env, EXISTING_CONFIG);
    expect(p.keyEnv).toBe("OPENROUTER_API_KEY");
    expect(p.files.envText).toBe("# my keys\nOPENROUTER_API_KEY=sk-or-new\nGITHUB_TOKEN=ghp_x\n");
    expect(p.files.configText).not.toContain("api_key");
    expect(runtimeOf(p.files.envText, p.files.configText).apiKey).toBe("sk-or-new");
  });

  test("a local provider keeps its default endpoint unless one is given", () => {
    expect(runtimeOf("", plan({ provider: "ollama", model: "llama3.3" }).files.configText).baseUrl).toBe("http://127.0.0.1:11434/v1");
    const custom = plan({ provider: "ollama", model: "llama3.3", baseUrl: "http://10.0.0.5:11434/v1" });
    expect(runtimeOf("", custom.files.configText)).toMatchObject({ provider: "ollama", baseUrl: "http://10.0.0.5:11434/v1" });
  });

  test.each([
    ["not YAML", "model: [unclosed\n", "not valid YAML (line"],
    ["a list", "- a\n- b\n", "not a mapping"],
  ])("refuses a config that is %s", (_label, configText, message) => {
    const result = setModelConfig(configText, { provider: "custom", model: "m", newKey: false });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(message);
  });
});

describe("validateAnswers", () => {
  test.each([
    ["an unknown provider", { provider: "nope", model: "m" }, 'Unknown provider "nope"'],
    ["a keyed provider without a key", { provider: "openrouter", model: "m" }, "needs an API key"],
    ["custom without a base URL", { provider: "custom", model: "m" }, "needs a base URL"],
    ["a non-http base URL", { provider: "custom", model: "m", baseUrl: "ftp://x" }, "not an http(s) URL"],
    ["a key for a keyless provider", { provider: "ollama", model: "m", apiKey: "k" }, "does not use an API key"],
    ["a multi-line key", { provider: "anthropic", model: "m", apiKey: "a\nb" }, "single line"],
    ["a blank model", { provider: "custom", model: " ", baseUrl: "http://x" }, "Choose a model"],
  ])("%s is refused", (_label, answers, message) => {
    const result = validateAnswers(answers);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(message);
  });

  test("a key already in .env, the environment or config (same provider) satisfies a provider that needs one", () => {
    expect(validateAnswers({ provider: "openrouter", model: "m" }, "OPENROUTER_API_KEY=sk-or-1\n").ok).toBe(true);
    expect(validateAnswers({ provider: "anthropic", model: "m" }, "", { ANTHROPIC_TOKEN: "t" }).ok).toBe(true);
    expect(validateAnswers({ provider: "openrouter", model: "m" }, "", {}, EXISTING_CONFIG).ok).toBe(true);
    expect(validateAnswers({ provider: "anthropic", model: "m" }, "", {}, EXISTING_CONFIG).ok).toBe(false);
  });
});

describe("setDefaultMode / currentMode", () => {
  test.each([
    ["an empty file", "", "acp:\n  default_mode: dont_ask\n"],
    ["an empty acp section", "acp:\n", "acp:\n  default_mode: dont_ask\n"],
    ["a commented empty acp section", "acp: # hermes-acp only\nmodel: x\n", "acp:\n  # hermes-acp only\n  default_mode: dont_ask\nmodel: x\n"],
    ["other acp keys", "acp:\n  keepalive_interval_s: 5 # seconds\n", "acp:\n  keepalive_interval_s: 5 # seconds\n  default_mode: dont_ask\n"],
    ["an existing mode with a comment", "acp:\n  default_mode: default # why\n", "acp:\n  default_mode: dont_ask # why\n"],
    ["the existing config", EXISTING_CONFIG, `${EXISTING_CONFIG}acp:\n  default_mode: dont_ask\n`],
    ["a trailing comment", "model: x\n\n# end\n", "model: x\nacp:\n  default_mode: dont_ask\n\n# end\n"],
  ])("%s", (_label, before, after) => {
    const result = setDefaultMode(before, "dont_ask");
    expect(result).toEqual({ ok: true, text: after });
    if (result.ok) {
      expect(currentMode(result.text)).toBe("dont_ask");
      const parsed = parseConfigText(result.text, "config.yaml");
      expect(parsed.ok && parsed.config.acp.default_mode).toBe("dont_ask");
    }
  });

  test.each([
    ["an unknown mode", "", "yolo", 'Unknown approval mode "yolo"'],
    ["a scalar acp", "acp: 3\n", "default", "`acp:` is not a mapping"],
    ["broken YAML", "acp: [\n", "default", "not valid YAML"],
    ["a list", "- a\n", "default", "not a mapping"],
  ])("refuses %s", (_label, before, mode, message) => {
    const result = setDefaultMode(before, mode);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(message);
  });

  test.each([
    ["nothing", "", undefined],
    ["a valid mode", "acp:\n  default_mode: accept_edits\n", "accept_edits"],
    ["an unknown mode", "acp:\n  default_mode: yolo\n", undefined],
    ["broken YAML", "acp: [", undefined],
  ] as const)("currentMode reads %s", (_label, text, expected) => {
    expect(currentMode(text)).toBe(expected);
  });

  test("applySetup writes the mode with the model, and refuses an unknown one", () => {
    const p = plan({ provider: "custom", baseUrl: "http://127.0.0.1:9/v1", model: "m", mode: " accept_edits " }, "", "# mine\nmax_turns: 30\n");
    expect(p.files.configText).toBe("# mine\nmax_turns: 30\nmodel:\n  provider: custom\n  default: m\n  base_url: http://127.0.0.1:9/v1\nacp:\n  default_mode: accept_edits\n");
    const noMode = plan({ provider: "custom", baseUrl: "http://127.0.0.1:9/v1", model: "m" });
    expect(noMode.files.configText).not.toContain("acp");
    const bad = applySetup({ provider: "custom", baseUrl: "http://127.0.0.1:9/v1", model: "m", mode: "Don't Ask" }, { envText: "", configText: "" });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toContain("dont_ask (Don't Ask)");
  });
});

test.each([
  ["a mapping", EXISTING_CONFIG, { provider: "openrouter", model: "anthropic/claude-opus-4.6" }],
  ["an alias and the `model:` key", "model:\n  provider: Claude\n  model: claude-haiku-4-5\n", { provider: "anthropic", model: "claude-haiku-4-5" }],
  ["the short form", "model: gpt-4\n", { model: "gpt-4" }],
  ["nothing", "", {}],
  ["broken YAML", "model: [", {}],
])("currentChoice reads %s", (_label, text, expected) => {
  expect(currentChoice(text)).toEqual(expected);
});

test("editor snippets are the Zed and JetBrains agent_servers entries", () => {
  const s = editorSnippets("/home/u/.local/bin/hermes-acp");
  expect(JSON.parse(s.zed)).toEqual({ agent_servers: { Hermes: { type: "custom", command: "/home/u/.local/bin/hermes-acp", args: [] } } });
  expect(JSON.parse(s.jetbrains)).toEqual({ agent_servers: { Hermes: { command: "/home/u/.local/bin/hermes-acp", args: [] } } });
});

describe("hermes-acp --setup (end to end)", () => {
  const main = join(import.meta.dir, "../../src/main.ts");
  let llm: FakeLlmServer;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(() => llm.stop());

  async function cli(args: string[], home: string, extraEnv: Record<string, string> = {}) {
    const proc = Bun.spawn([process.execPath, main, ...args], {
      env: { ...process.env, HERMES_HOME: home, HERMES_ACP_LOG_LEVEL: "warn", ...extraEnv },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { out, err, code };
  }

  // Each case spawns bun (or two); loaded CI machines need more than the default limit.
  const SLOW = 30_000;
  const freshHome = () => join(mkdtempSync(join(tmpdir(), "hermes-setup-")), "home");

  test("configures a custom endpoint, after which --check passes", async () => {
    const home = freshHome();
    const setup = await cli(["--setup", "--provider", "custom", "--base-url", llm.url, "--model", "fake-model"], home);
    expect(setup.err).toBe("");
    expect(setup.code).toBe(0);
    expect(setup.out).toContain("check OK");
    expect(setup.out).toContain('"agent_servers"');
    expect(readFileSync(join(home, "config.yaml"), "utf8")).toContain(`base_url: ${llm.url}`);
    if (process.platform !== "win32") expect(statSync(home).mode & 0o777).toBe(0o700);

    const check = await cli(["--check"], home);
    expect(check.code).toBe(0);
    expect(check.out).toMatch(/OK.*provider custom, model fake-model/);
  }, SLOW);

  test("saves a key from the environment to .env with mode 0600 and keeps existing content", async () => {
    const home = freshHome();
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, ".env"), "# mine\nGITHUB_TOKEN=ghp_keepme\n");
    chmodSync(join(home, ".env"), 0o644);
    writeFileSync(join(home, "config.yaml"), EXISTING_CONFIG);
    const seen: string[] = [];
    const models = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        seen.push(`${new URL(req.url).pathname} ${req.headers.get("authorization")}`);
        return Response.json({ data: [{ id: "openai/gpt-5.4" }] });
      },
    });
    const base = `http://127.0.0.1:${models.port}/api/v1`;
    const r = await cli(["--setup", "--provider", "openrouter", "--model", "openai/gpt-5.4", "--base-url", base], home, { OPENROUTER_API_KEY: "sk-or-from-shell-123" });
    models.stop(true);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).not.toContain("sk-or-from-shell-123");
    const env = readFileSync(join(home, ".env"), "utf8");
    expect(env).toBe("# mine\nGITHUB_TOKEN=ghp_keepme\nOPENROUTER_API_KEY=sk-or-from-shell-123\n");
    if (process.platform !== "win32") expect(statSync(join(home, ".env")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(home, "config.yaml"), "utf8")).toContain("mode: manual # ask for everything");
    expect(seen).toEqual(["/api/v1/models Bearer sk-or-from-shell-123"]);
  }, SLOW);

  test("keeps the settings but fails the check when the endpoint rejects the key; warns when it lacks the model", async () => {
    llm.modelsFailure = 401;
    const home = freshHome();
    const rejected = await cli(["--setup", "--provider", "custom", "--base-url", llm.url, "--model", "fake-model", "--api-key", "sk-bad-key-123"], home);
    llm.modelsFailure = null;
    expect(rejected.code).toBe(1);
    expect(rejected.err).toContain("rejected the API key (from OPENAI_API_KEY) with HTTP 401");
    expect(rejected.err).toContain("The settings are saved");
    expect(rejected.out + rejected.err).not.toContain("sk-bad-key-123");
    expect(readFileSync(join(home, ".env"), "utf8")).toBe("OPENAI_API_KEY=sk-bad-key-123\n");
    const unknown = await cli(["--setup", "--provider", "custom", "--base-url", llm.url, "--model", "no-such-model"], freshHome());
    expect(unknown.code).toBe(0);
    expect(unknown.err).toContain('does not list the model "no-such-model"');
  }, SLOW);

  test("--mode writes acp.default_mode with the rest, and alone changes only the mode", async () => {
    const home = freshHome();
    const setup = await cli(["--setup", "--provider", "custom", "--base-url", llm.url, "--model", "fake-model", "--mode", "accept_edits"], home);
    expect(setup.err).toBe("");
    expect(setup.code).toBe(0);
    expect(setup.out).toContain("mode accept_edits");
    const first = readFileSync(join(home, "config.yaml"), "utf8");
    expect(first).toContain("acp:\n  default_mode: accept_edits\n");

    const only = await cli(["--setup", "--mode", "dont_ask"], home);
    expect(only.code).toBe(0);
    expect(readFileSync(join(home, "config.yaml"), "utf8")).toBe(first.replace("accept_edits", "dont_ask"));

    const bad = await cli(["--setup", "--mode", "yolo"], home);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('Unknown approval mode "yolo"');
    expect(readFileSync(join(home, "config.yaml"), "utf8")).toContain("default_mode: dont_ask");
  }, SLOW);

  test("fails with a clear message and writes nothing when the key is missing", async () => {
    const home = freshHome();
    const r = await cli(["--setup", "--provider", "openrouter", "--model", "x"], home);
    expect(r.code).toBe(1);
    expect(r.err).toContain("needs an API key");
    expect(existsSync(home)).toBe(false);
  }, SLOW);

  test("without a terminal and without flags it explains how to script it", async () => {
    const r = await cli(["--setup"], freshHome());
    expect(r.code).toBe(1);
    expect(r.err).toContain("--provider <id> --model <name>");
  }, SLOW);
});
