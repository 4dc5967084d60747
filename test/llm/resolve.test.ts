import { describe, expect, test } from "bun:test";
import { defaultConfig, parseConfigText, type HermesConfig } from "../../src/config/load.ts";
import { findProvider, normaliseProviderId, providerLabel, PROVIDERS } from "../../src/llm/providers.ts";
import { credentialProviders, detectProvider, parseModelSelection, resolveRuntime, type Runtime } from "../../src/llm/resolve.ts";

type Env = Record<string, string | undefined>;

function config(text = ""): HermesConfig {
  const result = parseConfigText(text, "config.yaml");
  if (!result.ok) throw new Error(result.error.message);
  return result.config;
}

function runtime(input: { config?: HermesConfig; env?: Env; requestedProvider?: string; requestedModel?: string; baseUrl?: string; apiMode?: string }): Runtime {
  const result = resolveRuntime({ config: input.config ?? defaultConfig(), env: { HOME: "/home/u", ...input.env }, ...input });
  if (!result.ok) throw new Error(result.error);
  return result.runtime;
}

function failure(input: { config?: HermesConfig; env?: Env; requestedProvider?: string; apiMode?: string }): string {
  const result = resolveRuntime({ config: input.config ?? defaultConfig(), env: { HOME: "/home/u", ...input.env }, ...input });
  if (result.ok) throw new Error(`expected an error, got ${result.runtime.provider}`);
  return result.error;
}

describe("provider catalogue", () => {
  test.each([
    [" OpenRouter ", "openrouter"],
    ["openai", "openai-api"],
    ["google", "gemini"],
    ["claude", "anthropic"],
    ["lm-studio", "lmstudio"],
    ["nous-api", "nous"],
    ["Some-Thing", "some-thing"],
  ])("normalises %p to %p", (raw, id) => {
    expect(normaliseProviderId(raw)).toBe(id);
  });

  test("local servers need no key and have loopback endpoints", () => {
    for (const id of ["ollama", "lmstudio", "llamacpp", "vllm"]) {
      const info = findProvider(id);
      expect(info?.requiresKey).toBe(false);
      expect(info?.local).toBe(true);
      expect(info?.baseUrl).toStartWith("http://127.0.0.1:");
    }
  });

  test("every catalogue entry has a unique id and a consistent api mode", () => {
    expect(new Set(PROVIDERS.map((p) => p.id)).size).toBe(PROVIDERS.length);
    for (const p of PROVIDERS) expect(p.apiMode).toBe(p.id === "anthropic" ? "anthropic_messages" : "chat_completions");
  });

  test("labels", () => {
    expect(providerLabel("openrouter")).toBe("OpenRouter");
    expect(providerLabel("custom:Work")).toBe("Custom (work)");
  });
});

describe("resolveRuntime: which provider", () => {
  test("auto-detects from the keys present, OpenRouter first", () => {
    expect(runtime({ env: { OPENROUTER_API_KEY: "sk-or", ANTHROPIC_API_KEY: "sk-ant" } })).toEqual({
      provider: "openrouter",
      model: "anthropic/claude-opus-4.6",
      baseUrl: "https://openrouter.ai/api/v1",
      apiKey: "sk-or",
      apiMode: "chat_completions",
      source: "auto:OPENROUTER_API_KEY",
      keySource: "OPENROUTER_API_KEY",
    });
  });

  test.each([
    ["ANTHROPIC_API_KEY", "anthropic"],
    ["ANTHROPIC_TOKEN", "anthropic"],
    ["OPENAI_API_KEY", "openai-api"],
    ["GOOGLE_API_KEY", "gemini"],
    ["DEEPSEEK_API_KEY", "deepseek"],
    ["XAI_API_KEY", "xai"],
    ["NOUS_API_KEY", "nous"],
  ])("a lone %s selects %s", (key, provider) => {
    const result = runtime({ env: { [key]: "k" } });
    expect(result.provider).toBe(provider);
    expect(result.keySource).toBe(key);
  });

  test("Anthropic speaks the Messages API", () => {
    expect(runtime({ env: { ANTHROPIC_API_KEY: "k" } })).toMatchObject({ apiMode: "anthropic_messages", baseUrl: "https://api.anthropic.com" });
  });

  test("blank keys do not count", () => {
    expect(runtime({ env: { OPENROUTER_API_KEY: "  ", DEEPSEEK_API_KEY: "d" } }).provider).toBe("deepseek");
  });

  test("config model.provider beats the env choice and auto-detection", () => {
    const env = { HERMES_INFERENCE_PROVIDER: "deepseek", DEEPSEEK_API_KEY: "d", OPENROUTER_API_KEY: "o", XAI_API_KEY: "x" };
    expect(runtime({ config: config("model:\n  provider: xai\n"), env })).toMatchObject({ provider: "xai", source: "config:model.provider" });
  });

  test("HERMES_INFERENCE_PROVIDER beats auto-detection; `auto` means auto", () => {
    const env = { DEEPSEEK_API_KEY: "d", OPENROUTER_API_KEY: "o" };
    expect(runtime({ env: { ...env, HERMES_INFERENCE_PROVIDER: " DeepSeek " } })).toMatchObject({ provider: "deepseek", source: "env:HERMES_INFERENCE_PROVIDER" });
    expect(runtime({ env: { ...env, HERMES_INFERENCE_PROVIDER: "auto" } }).provider).toBe("openrouter");
    expect(runtime({ config: config("model:\n  provider: auto\n"), env }).provider).toBe("openrouter");
  });

  test("an explicit request beats everything", () => {
    const result = runtime({ config: config("model:\n  provider: xai\n"), env: { XAI_API_KEY: "x", GEMINI_API_KEY: "g" }, requestedProvider: "google" });
    expect(result).toMatchObject({ provider: "gemini", source: "request", apiKey: "g" });
  });

  test("nothing configured: says how to fix it", () => {
    const error = failure({ env: { HERMES_HOME: "/h" } });
    expect(error).toContain("hermes-acp --setup");
    expect(error).toContain("/h/.env");
  });

  test("a chosen provider without its key names the variables", () => {
    const error = failure({ config: config("model:\n  provider: anthropic\n"), env: { OPENROUTER_API_KEY: "o" } });
    expect(error).toContain("ANTHROPIC_API_KEY or ANTHROPIC_TOKEN");
    expect(error).toContain("hermes-acp --setup");
  });

  test("unknown provider", () => {
    expect(failure({ requestedProvider: "nope", env: { OPENROUTER_API_KEY: "o" } })).toContain('Unknown provider "nope"');
  });
});

describe("resolveRuntime: model, endpoint, key", () => {
  const env = { OPENROUTER_API_KEY: "sk-or", DEEPSEEK_API_KEY: "sk-ds" };

  test("model: requested, then config default, then the provider default", () => {
    const cfg = config("model:\n  provider: openrouter\n  default: openai/gpt-5.4\n");
    expect(runtime({ config: cfg, env, requestedModel: "x/y" }).model).toBe("x/y");
    expect(runtime({ config: cfg, env }).model).toBe("openai/gpt-5.4");
    expect(runtime({ env }).model).toBe("anthropic/claude-opus-4.6");
  });

  test("a bare `model: name` applies to whichever provider resolves", () => {
    expect(runtime({ config: config("model: deepseek-reasoner\n"), env: { DEEPSEEK_API_KEY: "d" } }).model).toBe("deepseek-reasoner");
  });

  test("the configured provider's model, key and endpoint are not carried to another provider", () => {
    const cfg = config("model:\n  provider: openrouter\n  default: openai/gpt-5.4\n  api_key: sk-config\n  base_url: https://proxy.example/v1\n  context_length: 1000\n");
    const other = runtime({ config: cfg, env, requestedProvider: "deepseek" });
    expect(other).toMatchObject({ provider: "deepseek", model: "deepseek-chat", apiKey: "sk-ds", baseUrl: "https://api.deepseek.com/v1" });
    expect(other.contextLength).toBeUndefined();
    const same = runtime({ config: cfg, env });
    expect(same).toMatchObject({ apiKey: "sk-config", keySource: "config:model.api_key", baseUrl: "https://proxy.example/v1", contextLength: 1000 });
  });

  test("base_url: explicit, then config, then the env override, then the catalogue", () => {
    const cfg = config("model:\n  provider: openai\n  base_url: https://cfg/v1\n");
    const keyed = { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "https://env/v1" };
    expect(runtime({ config: cfg, env: keyed, baseUrl: "https://explicit/v1" }).baseUrl).toBe("https://explicit/v1");
    expect(runtime({ config: cfg, env: keyed }).baseUrl).toBe("https://cfg/v1");
    expect(runtime({ env: keyed }).baseUrl).toBe("https://env/v1");
    expect(runtime({ env: { OPENAI_API_KEY: "k" } }).baseUrl).toBe("https://api.openai.com/v1");
  });

  test("Hermes' template: provider auto with an OpenRouter base_url", () => {
    const cfg = config('model:\n  default: "anthropic/claude-opus-4.6"\n  provider: "auto"\n  base_url: "https://openrouter.ai/api/v1"\n');
    expect(runtime({ config: cfg, env: { OPENROUTER_API_KEY: "o" } })).toMatchObject({ provider: "openrouter", source: "config:model.base_url" });
  });

  test("context_length and max_tokens come from model:", () => {
    const cfg = config("model:\n  provider: deepseek\n  context_length: 64000\n  max_tokens: 4096\n");
    expect(runtime({ config: cfg, env })).toMatchObject({ contextLength: 64000, maxTokens: 4096 });
  });

  test("api_mode: explicit input wins; unsupported modes are refused with a fix", () => {
    expect(runtime({ env, apiMode: "anthropic_messages" }).apiMode).toBe("anthropic_messages");
    const error = failure({ config: config("model:\n  provider: openrouter\n  api_mode: codex_responses\n"), env });
    expect(error).toContain("codex_responses");
    expect(error).toContain("chat_completions");
  });
});

describe("resolveRuntime: local and custom endpoints", () => {
  test("a configured local server needs no key", () => {
    expect(runtime({ config: config("model:\n  provider: ollama\n") })).toEqual({
      provider: "ollama",
      model: "qwen3-coder:30b",
      baseUrl: "http://127.0.0.1:11434/v1",
      apiKey: null,
      apiMode: "chat_completions",
      source: "config:model.provider",
    });
  });

  test("a base_url on a local server's port selects that server", () => {
    const cfg = config("model:\n  default: llama3\n  base_url: http://localhost:1234/v1\n");
    expect(runtime({ config: cfg })).toMatchObject({ provider: "lmstudio", baseUrl: "http://localhost:1234/v1", model: "llama3" });
  });

  test("any other base_url is a custom endpoint, with OPENAI_API_KEY when present", () => {
    const cfg = config("model:\n  default: m\n  base_url: http://10.0.0.5:9999/v1\n");
    expect(runtime({ config: cfg })).toMatchObject({ provider: "custom", apiKey: null, baseUrl: "http://10.0.0.5:9999/v1" });
    expect(runtime({ config: cfg, env: { OPENAI_API_KEY: "k" } }).apiKey).toBe("k");
  });

  test("custom endpoints ending in /anthropic speak the Messages API", () => {
    const cfg = config("model:\n  provider: custom\n  default: m\n  base_url: https://gw.example/ai/anthropic\n");
    expect(runtime({ config: cfg }).apiMode).toBe("anthropic_messages");
  });

  test("OPENAI_BASE_URL alone selects custom", () => {
    const cfg = config("model: m\n");
    expect(runtime({ config: cfg, env: { OPENAI_BASE_URL: "http://127.0.0.1:7000/v1" } })).toMatchObject({ provider: "custom", source: "env:OPENAI_BASE_URL" });
  });

  test("custom without an endpoint or a model explains what to set", () => {
    expect(failure({ requestedProvider: "custom" })).toContain("model.base_url");
    expect(failure({ requestedProvider: "custom", env: { OPENAI_BASE_URL: "http://x/v1" } })).toContain("No model chosen");
  });

  const named = config(`
providers:
  Work:
    base_url: https://work.example/v1
    api_key: \${WORK_KEY}
    models: [big, small]
    context_length: 32000
  lab:
    base_url: https://lab.example/v1
    key_env: LAB_KEY
    default_model: qwen
  broken:
    api_key: x
  gemini:
    api_key: \${MY_GEMINI}
  anthropic:
    request_timeout_seconds: 30
`);

  test("custom:<name> resolves a providers: entry, expanding ${VAR} keys", () => {
    expect(runtime({ config: named, env: { WORK_KEY: "wk" }, requestedProvider: "custom:work" })).toEqual({
      provider: "custom:work",
      model: "big",
      baseUrl: "https://work.example/v1",
      apiKey: "wk",
      apiMode: "chat_completions",
      contextLength: 32000,
      source: "request",
      keySource: "config:providers.api_key",
    });
  });

  test("a bare providers: name works too, with key_env and default_model", () => {
    expect(runtime({ config: named, env: { LAB_KEY: "lk" }, requestedProvider: "LAB" })).toMatchObject({
      provider: "custom:lab",
      model: "qwen",
      apiKey: "lk",
      keySource: "LAB_KEY",
    });
  });

  test("an unset ${VAR} leaves a named endpoint keyless", () => {
    expect(runtime({ config: named, requestedProvider: "custom:work" }).apiKey).toBeNull();
  });

  test("entries named after a built-in provider override it", () => {
    expect(runtime({ config: named, env: { MY_GEMINI: "g" }, requestedProvider: "gemini" }).apiKey).toBe("g");
    expect(runtime({ config: named, env: { ANTHROPIC_API_KEY: "a" }, requestedProvider: "anthropic" }).baseUrl).toBe("https://api.anthropic.com");
  });

  test("named entry problems are explained", () => {
    expect(failure({ config: named, requestedProvider: "custom:broken" })).toContain("providers.broken");
    expect(failure({ config: named, requestedProvider: "custom:missing" })).toContain('No provider named "missing"');
  });

  test("model.provider may name a providers: entry; model.default then applies to it", () => {
    const cfg = config("model:\n  provider: lab\n  default: other\nproviders:\n  lab:\n    base_url: http://lab/v1\n");
    expect(runtime({ config: cfg })).toMatchObject({ provider: "custom:lab", model: "other" });
  });
});

describe("detectProvider (hermes-behaviour §5.1, §22.1)", () => {
  test('" OpenRouter " in config with a key → "openrouter"', () => {
    expect(detectProvider(config('model:\n  provider: " OpenRouter "\n'), { OPENROUTER_API_KEY: "k" })).toBe("openrouter");
  });

  test("auto-detected from a key", () => {
    expect(detectProvider(defaultConfig(), { DEEPSEEK_API_KEY: "k" })).toBe("deepseek");
  });

  test("empty or whitespace key → null", () => {
    expect(detectProvider(config("model:\n  provider: openrouter\n"), { OPENROUTER_API_KEY: "" })).toBeNull();
    expect(detectProvider(config("model:\n  provider: openrouter\n  api_key: '  '\n"), { OPENROUTER_API_KEY: "   " })).toBeNull();
  });

  test("no provider and no key → null", () => {
    expect(detectProvider(defaultConfig(), {})).toBeNull();
  });

  test("unknown configured provider → null", () => {
    expect(detectProvider(config("model:\n  provider: nope\n"), { OPENROUTER_API_KEY: "k" })).toBeNull();
  });

  test("local servers count only when explicitly configured", () => {
    expect(detectProvider(defaultConfig(), { LM_API_KEY: "k" })).toBeNull();
    expect(detectProvider(config("model:\n  provider: LM-Studio\n"), {})).toBe("lmstudio");
    expect(detectProvider(defaultConfig(), { HERMES_INFERENCE_PROVIDER: "ollama" })).toBe("ollama");
  });

  test("a named endpoint is lower-cased", () => {
    expect(detectProvider(config("model:\n  provider: custom:Work\nproviders:\n  Work:\n    base_url: http://w/v1\n    model: m\n"), {})).toBe("custom:work");
  });
});

describe("credentialProviders", () => {
  test("lists keyed providers, then explicit local and named ones", () => {
    const cfg = config("model:\n  provider: ollama\nproviders:\n  lab:\n    base_url: http://lab/v1\n    model: m\n  gemini:\n    api_key: ${G}\n");
    expect(credentialProviders(cfg, { OPENROUTER_API_KEY: "o", DEEPSEEK_API_KEY: "d", G: "g", LM_API_KEY: "l" })).toEqual([
      "openrouter",
      "gemini",
      "deepseek",
      "ollama",
      "custom:lab",
    ]);
  });

  test("nothing usable → empty", () => {
    expect(credentialProviders(defaultConfig(), {})).toEqual([]);
  });
});

describe("parseModelSelection (hermes-behaviour §15.2)", () => {
  const cfg = config("providers:\n  work:\n    base_url: http://w/v1\n    models: [big]\n");

  test.each([
    ["anthropic:claude-opus-4-6", "openrouter", "anthropic", "claude-opus-4-6"],
    ["Claude:claude-opus-4-6", "openrouter", "anthropic", "claude-opus-4-6"],
    ["openrouter:openai/gpt-5.4", "anthropic", "openrouter", "openai/gpt-5.4"],
    ["anthropic/claude-opus-4.6", "openrouter", "openrouter", "anthropic/claude-opus-4.6"],
    ["qwen3:latest", "ollama", "ollama", "qwen3:latest"],
    ["ollama:qwen3:latest", "openrouter", "ollama", "qwen3:latest"],
    ["nex-agi/nex-n2.5-pro:free", "openrouter", "openrouter", "nex-agi/nex-n2.5-pro:free"],
    ["deepseek", "openrouter", "deepseek", "deepseek-chat"],
    ["anthropic:", "openrouter", "anthropic", "claude-sonnet-4-6"],
    ["custom:work:small", "openrouter", "custom:work", "small"],
    ["custom:work", "openrouter", "custom:work", "big"],
    ["work:tiny", "openrouter", "custom:work", "tiny"],
    ["custom:llama3", "openrouter", "custom", "llama3"],
    ["  gpt-5.4-mini  ", " OpenAI ", "openai-api", "gpt-5.4-mini"],
  ])("%p on %p → %p / %p", (value, current, provider, model) => {
    expect(parseModelSelection(value, current, cfg)).toEqual({ provider, model });
  });
});
