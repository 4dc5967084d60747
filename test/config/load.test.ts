import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig, loadConfig, modelSettings, parseConfigText, type ConfigError, type HermesConfig } from "../../src/config/load.ts";

function writeConfig(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "hermes-config-")), "config.yaml");
  writeFileSync(path, text);
  return path;
}

function load(text: string): HermesConfig {
  const result = parseConfigText(text, "/h/config.yaml");
  if (!result.ok) throw new Error(`expected a valid config, got: ${result.error.message}`);
  return result.config;
}

function loadError(text: string): ConfigError {
  const result = parseConfigText(text, "/h/config.yaml");
  if (result.ok) throw new Error("expected a ConfigError");
  return result.error;
}

describe("loadConfig", () => {
  test("a missing file means the defaults", () => {
    const result = loadConfig(join(mkdtempSync(join(tmpdir(), "hermes-config-")), "config.yaml"));
    expect(result).toEqual({ ok: true, config: defaultConfig() });
  });

  test("Hermes defaults for compression, agent, approvals", () => {
    const config = defaultConfig();
    expect(config.compression).toEqual({ enabled: true, threshold: 0.5, target_ratio: 0.2, protect_first_n: 3, protect_last_n: 20 });
    expect(config.agent.max_turns).toBe(90);
    expect(config.approvals).toEqual({ mode: "manual", timeout: 60 });
    expect(config.command_allowlist).toEqual([]);
    expect(config.mcp_servers).toEqual({});
    expect(config.providers).toEqual({});
    expect(modelSettings(config)).toEqual({});
  });

  test("empty and comment-only files are the defaults", () => {
    expect(load("")).toEqual(defaultConfig());
    expect(load("# nothing yet\n")).toEqual(defaultConfig());
  });

  test("reads a real file with the keys hermes-acp uses", () => {
    const path = writeConfig(`
model:
  default: anthropic/claude-opus-4.6
  provider: openrouter
  context_length: 200000
approvals:
  mode: smart
  timeout: 30
command_allowlist:
  - recursive delete
mcp_servers:
  github:
    command: npx
    args: [-y, "@modelcontextprotocol/server-github"]
    env:
      PORT: 3000
  docs:
    url: https://example.com/mcp
    headers: { Authorization: Bearer x }
    enabled: false
compression:
  threshold: 0.7
agent:
  max_turns: 40
`);
    const result = loadConfig(path);
    if (!result.ok) throw new Error(result.error.message);
    const { config } = result;
    expect(config.approvals).toEqual({ mode: "smart", timeout: 30 });
    expect(config.command_allowlist).toEqual(["recursive delete"]);
    expect(config.mcp_servers.github?.args).toEqual(["-y", "@modelcontextprotocol/server-github"]);
    expect(config.mcp_servers.github?.env).toEqual({ PORT: "3000" });
    expect(config.mcp_servers.docs?.enabled).toBe(false);
    expect(config.compression.threshold).toBe(0.7);
    expect(config.compression.protect_last_n).toBe(20);
    expect(config.agent.max_turns).toBe(40);
    expect(modelSettings(config)).toEqual({ default: "anthropic/claude-opus-4.6", provider: "openrouter", contextLength: 200000 });
  });

  test("unknown keys anywhere are kept and ignored", () => {
    const config = load(`
_config_version: 50
terminal:
  backend: local
model:
  default: x
  streaming: false
compression:
  in_place: true
mcp_servers:
  s:
    command: run
    sampling: { enabled: true }
`);
    expect(config._config_version).toBe(50);
    expect(config.terminal).toEqual({ backend: "local" });
    expect(typeof config.model === "object" && config.model.streaming).toBe(false);
    expect(config.compression.in_place).toBe(true);
    expect(config.mcp_servers.s?.sampling).toEqual({ enabled: true });
  });

  test("empty values (key:) count as unset, as in Hermes' template", () => {
    const config = load("model:\n  default: m\n  base_url:\n  api_key:\ncompression:\ncommand_allowlist:\nmcp_servers:\n  bare:\n");
    expect(modelSettings(config)).toEqual({ default: "m" });
    expect(config.compression.enabled).toBe(true);
    expect(config.command_allowlist).toEqual([]);
    expect(config.mcp_servers.bare).toEqual({});
  });

  test("top-level max_turns is accepted; agent.max_turns wins when both are set", () => {
    expect(load("max_turns: 12\n").agent.max_turns).toBe(12);
    expect(load("max_turns: 12\nagent:\n  max_turns: 7\n").agent.max_turns).toBe(7);
  });

  test("approvals mode written as YAML 1.1 `false` (off) reads as off", () => {
    expect(load("approvals: { mode: false }").approvals.mode).toBe("off");
  });

  test("quoted numbers are numbers", () => {
    expect(modelSettings(load('model:\n  context_length: "131072"\n')).contextLength).toBe(131072);
  });
});

describe("model: string vs mapping", () => {
  test("a bare string is the model name", () => {
    expect(modelSettings(load("model: anthropic/claude-sonnet-4.6\n"))).toEqual({ default: "anthropic/claude-sonnet-4.6" });
  });

  test("mapping keys are normalised, default before model before name", () => {
    const config = load(`
model:
  model: second
  name: third
  provider: " Anthropic "
  base_url: https://proxy.example/v1
  api_key: sk-ant-x
  api_mode: anthropic_messages
  max_tokens: 8192
`);
    expect(modelSettings(config)).toEqual({
      default: "second",
      provider: "Anthropic",
      baseUrl: "https://proxy.example/v1",
      apiKey: "sk-ant-x",
      apiMode: "anthropic_messages",
      maxTokens: 8192,
    });
    expect(modelSettings(load("model:\n  default: first\n  model: second\n")).default).toBe("first");
  });

  test('provider "auto" means not set', () => {
    expect(modelSettings(load("model:\n  provider: auto\n  default: m\n"))).toEqual({ default: "m" });
  });
});

describe("providers:", () => {
  test("mapping form, with models as a list or a mapping", () => {
    const config = load(`
providers:
  local:
    base_url: http://127.0.0.1:9000/v1
    models: [a, b]
  proxy:
    base_url: https://proxy/v1
    key_env: PROXY_KEY
    models:
      big: { timeout_seconds: 600 }
      small: {}
  anthropic:
    request_timeout_seconds: 30
`);
    expect(config.providers.local?.models).toEqual(["a", "b"]);
    expect(config.providers.proxy?.models).toEqual(["big", "small"]);
    expect(config.providers.proxy?.key_env).toBe("PROXY_KEY");
    expect(config.providers.anthropic?.request_timeout_seconds).toBe(30);
  });

  test("list form with name, and legacy custom_providers merged (providers wins)", () => {
    const config = load(`
providers:
  - name: work
    base_url: https://work/v1
custom_providers:
  - name: work
    base_url: https://old/v1
  - name: lab
    base_url: https://lab/v1
    model: qwen
`);
    expect(config.providers.work?.base_url).toBe("https://work/v1");
    expect(config.providers.lab?.model).toBe("qwen");
  });
});

describe("errors", () => {
  test("broken YAML: names the file and the line, never throws", () => {
    const path = writeConfig("model:\n  default: x\nproviders: [a, b\nother: 1\n");
    const result = loadConfig(path);
    if (result.ok) throw new Error("expected an error");
    expect(result.error.code).toBe("config_yaml_syntax");
    expect(result.error.file).toBe(path);
    expect(result.error.message).toContain(path);
    expect(result.error.line).toBe(4);
    expect(result.error.message).toContain("line 4");
    expect(result.error.fix).toContain("YAML");
  });

  test("tab indentation is a syntax error with a hint", () => {
    const error = loadError("model:\n\tdefault: x\n");
    expect(error.code).toBe("config_yaml_syntax");
    expect(error.fix).toContain("spaces, not tabs");
  });

  test("wrong type: key path, expectation, what was found and the line", () => {
    const error = loadError("model:\n  default: x\n  context_length: lots\n");
    expect(error).toMatchObject({ code: "config_invalid", keyPath: "model.context_length", line: 3 });
    expect(error.message).toBe(
      'In the Hermes config file /h/config.yaml, "model.context_length" (line 3) must be a number, but it is the text "lots".',
    );
    expect(error.fix).toContain('"model.context_length"');
  });

  test("nested list paths are reported", () => {
    const error = loadError("mcp_servers:\n  gh:\n    command: npx\n    args: oops\n");
    expect(error.keyPath).toBe("mcp_servers.gh.args");
    expect(error.message).toContain("a list of text values");
    expect(error.line).toBe(4);
  });

  test("range checks say the allowed range", () => {
    expect(loadError("compression:\n  threshold: 1.5\n").message).toContain('"compression.threshold" (line 2) must be a number from 0 to 1, but it is 1.5');
    expect(loadError("agent:\n  max_turns: 0\n").message).toContain("positive whole number");
  });

  test("model of the wrong shape explains both accepted forms", () => {
    const error = loadError("model:\n  - a\n");
    expect(error.keyPath).toBe("model");
    expect(error.message).toContain("a model name, or a mapping");
    expect(error.message).toContain("but it is a list");
  });

  test("secrets are never echoed in messages", () => {
    const error = loadError("model:\n  api_key: 123456789\n");
    expect(error.keyPath).toBe("model.api_key");
    expect(error.message).not.toContain("123456789");
  });

  test("a file that is not a mapping", () => {
    const error = loadError("just words\n");
    expect(error.code).toBe("config_invalid");
    expect(error.keyPath).toBeUndefined();
    expect(error.message).toContain("must be a mapping of settings");
  });

  test("several problems: the first is explained, the rest counted", () => {
    expect(loadError("agent:\n  max_turns: x\ncompression:\n  enabled: maybe\n").message).toContain("1 more problem");
  });

  test("a missing required name in the list form of providers", () => {
    const error = loadError("providers:\n  - base_url: https://x/v1\n");
    expect(error.keyPath).toBe("providers[0].name");
    expect(error.fix).toContain("Set");
  });

  test("an unreadable path is a ConfigError, not a throw", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "hermes-config-")), "config.yaml");
    mkdirSync(dir);
    const result = loadConfig(dir);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe("config_unreadable");
  });
});
