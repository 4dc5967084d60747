import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfigText, type HermesConfig } from "../../src/config/load.ts";
import {
  cachedModelCatalog,
  catalogValue,
  contextLengthFor,
  loadModelCatalog,
  type CatalogGroup,
  type FetchLike,
} from "../../src/llm/model-catalog.ts";
import { readModelsCache } from "../../src/llm/models-cache.ts";
import { findProvider } from "../../src/llm/providers.ts";
import { parseModelSelection } from "../../src/llm/resolve.ts";
import { startFakeLlm, type FakeLlmServer } from "../helpers/fake-llm-server.ts";

type Env = Record<string, string | undefined>;

let fake: FakeLlmServer;
beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(async () => {
  await fake.stop();
});
beforeEach(() => {
  fake.models = ["fake-model", "fake-model-large"];
  fake.modelsFailure = null;
});

function config(text: string): HermesConfig {
  const result = parseConfigText(text, "config.yaml");
  if (!result.ok) throw new Error(result.error.message);
  return result.config;
}

function cachePath(): string {
  return join(mkdtempSync(join(tmpdir(), "catalog-")), "models-cache.json");
}

/** Real fetch, counted, with the headers each request carried. */
function countingFetch(): { fetchImpl: FetchLike; calls: { url: string; headers: Headers }[] } {
  const calls: { url: string; headers: Headers }[] = [];
  const fetchImpl: FetchLike = (url, init) => {
    calls.push({ url, headers: new Headers(init.headers) });
    return fetch(url, init);
  };
  return { fetchImpl, calls };
}

const localConfig = (extra = "") => config(`model:\n  provider: local\n  default: fake-model\nproviders:\n  local:\n    base_url: ${fake.url}\n${extra}`);

function names(group: CatalogGroup | undefined): string[] {
  return group?.models.map((m) => m.model) ?? [];
}

describe("loadModelCatalog against a live endpoint", () => {
  test("lists a named endpoint's models: default first, the rest alphabetically, as provider:model values", async () => {
    fake.models = ["zeta", "fake-model", "alpha"];
    const cfg = localConfig();
    const { fetchImpl, calls } = countingFetch();
    const groups = await loadModelCatalog({ config: cfg, env: {}, cachePath: cachePath(), fetchImpl });
    expect(groups).toHaveLength(1);
    expect(groups[0]).toMatchObject({ provider: "custom:local", label: "Custom (local)", source: "live" });
    expect(names(groups[0])).toEqual(["fake-model", "alpha", "zeta"]);
    expect(calls.map((c) => c.url)).toEqual([`${fake.url}/models`]);
    const value = catalogValue(groups[0]!.models[1]!);
    expect(value).toBe("custom:local:alpha");
    expect(parseModelSelection(value, "openrouter", cfg)).toEqual({ provider: "custom:local", model: "alpha" });
  });

  test("models endpoint down → the curated fallback list, no throw", async () => {
    fake.modelsFailure = 500;
    const env = { OLLAMA_BASE_URL: fake.url };
    const groups = await loadModelCatalog({ config: config("model:\n  provider: ollama\n"), env, cachePath: cachePath() });
    expect(groups).toHaveLength(1);
    expect(groups[0]?.source).toBe("fallback");
    expect(names(groups[0])).toEqual([...(findProvider("ollama")?.models ?? [])]);
  });

  test("nothing listening at all → fallback with the configured model", async () => {
    const cfg = config("model:\n  provider: dead\n  default: my-model\nproviders:\n  dead:\n    base_url: http://127.0.0.1:9/v1\n");
    const groups = await loadModelCatalog({ config: cfg, env: {}, cachePath: cachePath() });
    expect(groups.map((g) => [g.provider, g.source, names(g)])).toEqual([["custom:dead", "fallback", ["my-model"]]]);
  });

  test("no usable provider → no groups", async () => {
    expect(await loadModelCatalog({ config: config(""), env: {}, cachePath: cachePath() })).toEqual([]);
    expect(cachedModelCatalog({ config: config(""), env: {}, cachePath: cachePath() })).toEqual([]);
  });
});

describe("the cache", () => {
  test("is written, reused within the TTL, refreshed after it", async () => {
    const path = cachePath();
    const { fetchImpl, calls } = countingFetch();
    let now = 1_000_000;
    const input = { config: localConfig(), env: {}, cachePath: path, fetchImpl, now: () => now };
    expect((await loadModelCatalog(input))[0]?.source).toBe("live");
    expect(readModelsCache(path)["custom:local"]?.models.map((m) => m.model)).toEqual(["fake-model", "fake-model-large"]);

    fake.models = ["fake-model", "newer"];
    now += 60 * 60 * 1000;
    const second = await loadModelCatalog(input);
    expect(calls).toHaveLength(1);
    expect(second[0]?.source).toBe("cache");
    expect(names(second[0])).toEqual(["fake-model", "fake-model-large"]);

    now += 6 * 60 * 60 * 1000;
    const third = await loadModelCatalog(input);
    expect(calls).toHaveLength(2);
    expect(third[0]?.source).toBe("live");
    expect(names(third[0])).toEqual(["fake-model", "newer"]);
  });

  test("a stale cache beats the fallback when the endpoint fails; cachedModelCatalog serves it without network", async () => {
    const path = cachePath();
    let now = 5_000;
    fake.models = ["fake-model", "cached-only"];
    await loadModelCatalog({ config: localConfig(), env: {}, cachePath: path, now: () => now });
    fake.modelsFailure = 503;
    now += 30 * 24 * 60 * 60 * 1000;
    const stale = await loadModelCatalog({ config: localConfig(), env: {}, cachePath: path, now: () => now });
    expect(stale[0]?.source).toBe("cache");
    expect(names(stale[0])).toEqual(["fake-model", "cached-only"]);
    const instant = cachedModelCatalog({ config: localConfig(), env: {}, cachePath: path });
    expect(instant).toEqual(stale);
    expect(cachedModelCatalog({ config: localConfig(), env: {}, cachePath: cachePath() })[0]?.source).toBe("fallback");
  });

  test("never holds keys, is mode 0600, and drops a listing that echoes the key", async () => {
    const path = cachePath();
    const key = "sk-test-secret-0123456789abcdef";
    fake.models = ["fake-model", `leak-${key}`];
    const { fetchImpl, calls } = countingFetch();
    const cfg = localConfig(`    api_key: ${key}\n`);
    const groups = await loadModelCatalog({ config: cfg, env: {}, cachePath: path, fetchImpl });
    expect(calls[0]?.headers.get("authorization")).toBe(`Bearer ${key}`);
    expect(names(groups[0])).toEqual(["fake-model"]);
    const text = readFileSync(path, "utf8");
    expect(text).toContain("fake-model");
    expect(text).not.toContain(key);
    expect(text).not.toContain(fake.url);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test("another endpoint's entry is not reused; other providers' entries survive a write", async () => {
    const path = cachePath();
    await loadModelCatalog({ config: localConfig(), env: {}, cachePath: path });
    const other = config(`model:\n  provider: other\n  default: o-model\nproviders:\n  other:\n    base_url: ${fake.origin}/v1/\n    api_mode: anthropic_messages\n`);
    fake.modelsFailure = 500;
    const groups = await loadModelCatalog({ config: other, env: {}, cachePath: path });
    expect(groups[0]?.source).toBe("fallback");
    fake.modelsFailure = null;
    await loadModelCatalog({ config: other, env: {}, cachePath: path });
    expect(Object.keys(readModelsCache(path)).sort()).toEqual(["custom:local", "custom:other"]);
  });

  test("a corrupt cache file is ignored", async () => {
    const path = cachePath();
    writeFileSync(path, "{not json");
    expect(cachedModelCatalog({ config: localConfig(), env: {}, cachePath: path })[0]?.source).toBe("fallback");
    writeFileSync(path, JSON.stringify({ version: 1, providers: { "custom:local": { endpoint: 3 } } }));
    expect((await loadModelCatalog({ config: localConfig(), env: {}, cachePath: path }))[0]?.source).toBe("live");
  });
});

describe("providers and groups", () => {
  test("two providers with keys → two groups, each asked its own way", async () => {
    const env: Env = {
      OPENROUTER_API_KEY: "sk-or-test-key-1",
      OPENROUTER_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: "sk-ant-test-key-2",
      ANTHROPIC_BASE_URL: fake.origin,
    };
    const { fetchImpl, calls } = countingFetch();
    const groups = await loadModelCatalog({ config: config(""), env, cachePath: cachePath(), fetchImpl });
    expect(groups.map((g) => [g.provider, g.label, g.source])).toEqual([
      ["openrouter", "OpenRouter", "live"],
      ["anthropic", "Anthropic", "live"],
    ]);
    // Each group pins its own default, not the other provider's.
    expect(names(groups[0])[0]).toBe(findProvider("openrouter")?.defaultModel ?? "");
    expect(names(groups[1])[0]).toBe(findProvider("anthropic")?.defaultModel ?? "");
    const anthropic = calls.find((c) => c.headers.get("x-api-key"));
    expect(anthropic?.url).toBe(`${fake.origin}/v1/models?limit=1000`);
    expect(anthropic?.headers.get("anthropic-version")).toBe("2023-06-01");
    expect(anthropic?.headers.get("authorization")).toBeNull();
    const openrouter = calls.find((c) => c.url === `${fake.url}/models`);
    expect(openrouter?.headers.get("authorization")).toBe("Bearer sk-or-test-key-1");
  });

  test("a providers: entry with a models list is the user's list: not fetched, default first", async () => {
    const cfg = config(
      `model: anthropic/claude-opus-4.6\nproviders:\n  lab:\n    base_url: ${fake.url}\n    default_model: b\n    models: [a, b, c]\n`,
    );
    const { fetchImpl, calls } = countingFetch();
    const env: Env = { OPENROUTER_API_KEY: "sk-or-test-key-1", OPENROUTER_BASE_URL: fake.url };
    const groups = await loadModelCatalog({ config: cfg, env, cachePath: cachePath(), fetchImpl });
    expect(groups.map((g) => g.provider)).toEqual(["openrouter", "custom:lab"]);
    expect(groups[1]).toMatchObject({ source: "config", label: "Custom (lab)" });
    expect(names(groups[1])).toEqual(["b", "a", "c"]);
    expect(calls.map((c) => c.url)).toEqual([`${fake.url}/models`]);
    expect(names(groups[0])[0]).toBe("anthropic/claude-opus-4.6");
  });
});

describe("ordering, cap and metadata", () => {
  // OpenRouter-shaped listing: hundreds of models with context_length, pricing and created.
  const listing = [
    ...Array.from({ length: 300 }, (_, i) => ({
      id: `vendor${String(i).padStart(3, "0")}/model`,
      name: `Vendor ${i}`,
      created: i,
      context_length: 1000 + i,
      pricing: { prompt: "0.000001", completion: "0.000002" },
      supported_parameters: i % 2 ? ["tools", "reasoning"] : ["tools"],
    })),
    { id: "openai/gpt-5.4", name: "OpenAI: GPT-5.4", created: 0, context_length: 400000, supported_parameters: ["reasoning"] },
    { id: "anthropic/claude-sonnet-4.6", created: 0, context_length: 1000000 },
    { id: "text-embedding-3-large", created: 999 },
    { bogus: true },
  ];
  const fakeOpenRouter: FetchLike = async () => Response.json({ data: listing });

  test("pinned default and current first, then curated, then the newest of the rest alphabetically, capped", async () => {
    const env: Env = { OPENROUTER_API_KEY: "sk-or-test-key-1" };
    const cfg = config("model:\n  provider: openrouter\n  default: me/unlisted-default\n");
    const current = { provider: "open-router", model: "vendor000/model" };
    const groups = await loadModelCatalog({ config: cfg, env, cachePath: cachePath(), fetchImpl: fakeOpenRouter, current });
    const list = names(groups[0]);
    expect(list).toHaveLength(50);
    expect(list.slice(0, 4)).toEqual(["me/unlisted-default", "vendor000/model", "anthropic/claude-sonnet-4.6", "openai/gpt-5.4"]);
    const rest = list.slice(4);
    expect(rest).toEqual([...rest].sort());
    expect(rest[0]).toBe("vendor254/model"); // the 46 newest of the others
    expect(rest.at(-1)).toBe("vendor299/model");
    expect(list).not.toContain("text-embedding-3-large");

    const gpt = groups[0]?.models.find((m) => m.model === "openai/gpt-5.4");
    expect(gpt).toEqual({ provider: "openrouter", model: "openai/gpt-5.4", label: "OpenAI: GPT-5.4", contextLength: 400000, reasoning: true });
    expect(contextLengthFor(groups, "or", "vendor299/model")).toBe(1299);
    expect(contextLengthFor(groups, "openrouter", "me/unlisted-default")).toBeUndefined();
    expect(contextLengthFor(groups, "anthropic", "openai/gpt-5.4")).toBeUndefined();
  });

  test("maxPerGroup is honoured and never drops the pinned models", async () => {
    const env: Env = { OPENROUTER_API_KEY: "sk-or-test-key-1" };
    const current = { provider: "openrouter", model: "x/current" };
    const groups = await loadModelCatalog({ config: config(""), env, cachePath: cachePath(), fetchImpl: fakeOpenRouter, current, maxPerGroup: 1 });
    expect(names(groups[0])).toEqual([findProvider("openrouter")?.defaultModel ?? "", "x/current"]);
  });
});

describe("bounded time", () => {
  test("a server that never answers /models → fallback within the timeout", async () => {
    const hung = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: () => new Promise<Response>(() => undefined) });
    try {
      const cfg = config(`model:\n  provider: slow\n  default: s-model\nproviders:\n  slow:\n    base_url: http://127.0.0.1:${hung.port}/v1\n`);
      const started = performance.now();
      const groups = await loadModelCatalog({ config: cfg, env: {}, cachePath: cachePath(), timeoutMs: 150 });
      const elapsed = performance.now() - started;
      expect(elapsed).toBeLessThan(1500);
      expect(groups.map((g) => [g.source, names(g)])).toEqual([["fallback", ["s-model"]]]);

      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const abortedAt = performance.now();
      const aborted = await loadModelCatalog({ config: cfg, env: {}, cachePath: cachePath(), signal: controller.signal, timeoutMs: 30_000 });
      expect(performance.now() - abortedAt).toBeLessThan(1500);
      expect(aborted[0]?.source).toBe("fallback");
    } finally {
      await hung.stop(true);
    }
  });
});
