import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { judgeProbe, modelsRequest, runCheck, type ModelsProbe } from "../../src/cli/check.ts";
import type { Runtime } from "../../src/llm/resolve.ts";
import { SessionStore } from "../../src/session/store.ts";
import { startFakeLlm, type FakeLlmServer } from "../helpers/fake-llm-server.ts";

const KEY = "sk-test-doctor-key-0123456789";

function runtime(over: Partial<Runtime> = {}): Runtime {
  return { provider: "custom", model: "m", baseUrl: "http://127.0.0.1:9/v1/", apiKey: null, apiMode: "chat_completions", source: "test", ...over };
}

describe("modelsRequest", () => {
  test.each([
    ["OpenAI-compatible with a key", runtime({ apiKey: "k" }), "http://127.0.0.1:9/v1/models", { accept: "application/json", authorization: "Bearer k" }],
    ["OpenAI-compatible without a key", runtime(), "http://127.0.0.1:9/v1/models", { accept: "application/json" }],
    [
      "Anthropic with an API key",
      runtime({ apiMode: "anthropic_messages", baseUrl: "https://api.anthropic.com", apiKey: "sk-ant-api-1" }),
      "https://api.anthropic.com/v1/models?limit=1000",
      { accept: "application/json", "anthropic-version": "2023-06-01", "x-api-key": "sk-ant-api-1" },
    ],
    [
      "Anthropic with an OAuth token and a /v1 base",
      runtime({ apiMode: "anthropic_messages", baseUrl: "https://proxy.example/v1", apiKey: "sk-ant-oat-1" }),
      "https://proxy.example/v1/models?limit=1000",
      { accept: "application/json", "anthropic-version": "2023-06-01", authorization: "Bearer sk-ant-oat-1", "anthropic-beta": "oauth-2025-04-20" },
    ],
  ])("%s", (_label, rt, url, headers) => {
    expect(modelsRequest(rt)).toEqual({ url, headers });
  });
});

describe("judgeProbe", () => {
  const rt = runtime({ model: "fake-model", apiKey: KEY, keySource: "OPENAI_API_KEY" });
  const url = "http://x/v1/models";
  test.each<[string, ModelsProbe, { problem?: string; warning?: string; note?: string }]>([
    ["a listing with the model", { kind: "listed", url, models: ["a", "fake-model"] }, { note: "models endpoint OK (2 models)" }],
    ["an empty listing", { kind: "listed", url, models: [] }, { note: "models endpoint OK" }],
    ["a listing without the model", { kind: "listed", url, models: ["a"] }, { note: "models endpoint OK (1 model)", warning: 'does not list the model "fake-model"' }],
    ["a rejected key", { kind: "rejected", url, status: 401 }, { problem: "rejected the API key (from OPENAI_API_KEY) with HTTP 401" }],
    ["a forbidden key", { kind: "rejected", url, status: 403 }, { problem: "HTTP 403" }],
    ["a server error", { kind: "http_error", url, status: 500 }, { warning: "answered HTTP 500", note: "models endpoint not checked" }],
    ["an unreachable endpoint", { kind: "unreachable", url, reason: "refused" }, { warning: "could not reach http://x/v1/models (refused)", note: "models endpoint unreachable" }],
  ])("%s", (_label, probe, expected) => {
    const verdict = judgeProbe(probe, rt, "/h/.env");
    expect(verdict.problem?.what ?? "").toContain(expected.problem ?? "");
    expect(Boolean(verdict.problem)).toBe(Boolean(expected.problem));
    if (verdict.problem) expect(verdict.problem.fix).toContain("/h/.env");
    expect(verdict.warning ?? "").toContain(expected.warning ?? "");
    expect(Boolean(verdict.warning)).toBe(Boolean(expected.warning));
    expect(verdict.note).toBe(expected.note);
  });
});

describe("runCheck (the doctor)", () => {
  let llm: FakeLlmServer;
  beforeAll(async () => {
    llm = await startFakeLlm();
  });
  afterAll(() => llm.stop());

  function home(files: { config?: string; env?: string } = {}): string {
    const dir = join(mkdtempSync(join(tmpdir(), "hermes-check-")), "home");
    mkdirSync(dir, { recursive: true });
    if (files.config !== undefined) writeFileSync(join(dir, "config.yaml"), files.config);
    if (files.env !== undefined) writeFileSync(join(dir, ".env"), files.env, { mode: 0o600 });
    return dir;
  }
  const customConfig = (url: string, extra = "") => `model:\n  provider: custom\n  base_url: ${url}\n  default: fake-model\n${extra}`;

  async function check(dir: string, timeoutMs = 3000) {
    const out: string[] = [];
    const warnings: string[] = [];
    const code = await runCheck({ out: (l) => out.push(l), warn: (l) => warnings.push(l), env: { HERMES_HOME: dir }, timeoutMs });
    return { code, out, warnings, all: [...out, ...warnings].join("\n") };
  }

  test("a working setup prints exactly one OK line with the masked key, the endpoint and state.db", async () => {
    const dir = home({ config: customConfig(llm.url, "acp:\n  default_mode: accept_edits\n"), env: `OPENAI_API_KEY=${KEY}\n` });
    const r = await check(dir);
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(1);
    expect(r.out[0]).toStartWith("Hermes ACP check OK");
    expect(r.out[0]).toContain("provider custom, model fake-model, key sk-t…89 from OPENAI_API_KEY");
    expect(r.out[0]).toContain("mode accept_edits");
    expect(r.out[0]).toContain("models endpoint OK (2 models)");
    expect(r.out[0]).toContain(`state.db ${join(dir, "state.db")} (schema v16, integrity ok)`);
    expect(r.warnings).toEqual([]);
    expect(r.all).not.toContain(KEY);
  });

  test.each([401, 403])("a key the endpoint rejects (HTTP %d) fails the check with a fix", async (status) => {
    const dir = home({ config: customConfig(llm.url), env: `OPENAI_API_KEY=${KEY}\n` });
    llm.modelsFailure = status;
    try {
      const r = await check(dir);
      expect(r.code).toBe(1);
      expect(r.out[0]).toBe("Hermes ACP check found 1 problem:");
      expect(r.out.join("\n")).toContain(`rejected the API key (from OPENAI_API_KEY) with HTTP ${status}`);
      expect(r.out.join("\n")).toContain(`Fix: Put a valid key for custom in ${join(dir, ".env")}`);
      expect(r.all).not.toContain(KEY);
      expect(r.all).not.toContain("check OK");
    } finally {
      llm.modelsFailure = null;
    }
  });

  test("an endpoint that is down is a warning, not a failure", async () => {
    const down = await startFakeLlm();
    const url = down.url;
    await down.stop();
    const r = await check(home({ config: customConfig(url), env: `OPENAI_API_KEY=${KEY}\n` }));
    expect(r.code).toBe(0);
    expect(r.out).toHaveLength(1);
    expect(r.out[0]).toContain("models endpoint unreachable");
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toStartWith(`Warning: could not reach ${url}/models`);
  });

  test("an endpoint that never answers is given up on after the timeout", async () => {
    const silent = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => undefined) });
    try {
      const started = performance.now();
      const r = await check(home({ config: customConfig(`http://127.0.0.1:${silent.port}/v1`) }), 300);
      expect(performance.now() - started).toBeLessThan(2500);
      expect(r.code).toBe(0);
      expect(r.warnings.join("\n")).toContain("no answer within 0.3 s");
    } finally {
      silent.stop(true);
    }
  });

  test("a server error and an unlisted model are warnings", async () => {
    llm.modelsFailure = 500;
    try {
      const r = await check(home({ config: customConfig(llm.url) }));
      expect(r.code).toBe(0);
      expect(r.warnings.join("\n")).toContain("answered HTTP 500");
    } finally {
      llm.modelsFailure = null;
    }
    const r = await check(home({ config: customConfig(llm.url).replace("default: fake-model", "default: other-model") }));
    expect(r.code).toBe(0);
    expect(r.warnings.join("\n")).toContain('does not list the model "other-model"');
  });

  test("no provider, a broken config, and an unknown default mode are reported with fixes", async () => {
    const none = await check(home());
    expect(none.code).toBe(1);
    expect(none.out.join("\n")).toContain("No model provider is configured");
    expect(none.out.join("\n")).toContain("Fix: Run `hermes-acp --setup`");

    const broken = await check(home({ config: "model: [unclosed\n" }));
    expect(broken.code).toBe(1);
    expect(broken.out.join("\n")).toContain("is not valid YAML");
    expect(broken.out.join("\n")).toContain("Fix:");

    const mode = await check(home({ config: customConfig(llm.url, "acp:\n  default_mode: yolo\n") }));
    expect(mode.code).toBe(0);
    expect(mode.warnings.join("\n")).toContain('acp.default_mode "yolo"');

    // A summary model that cannot be used warns (the session's model will do); one that can is named.
    const noKey = await check(home({ config: customConfig(llm.url, "auxiliary:\n  compression:\n    provider: openrouter\n    model: google/flash\n") }));
    expect(noKey.code).toBe(0);
    expect(noKey.warnings.join("\n")).toContain("the compression summary model openrouter:google/flash cannot be used");
    const cheap = await check(home({ config: customConfig(llm.url, "auxiliary:\n  compression:\n    model: cheap-summariser\n") }));
    expect(cheap.code).toBe(0);
    expect(cheap.out.join("\n")).toContain("summaries by custom:cheap-summariser");
  });

  test("a state.db that is not a database fails the check", async () => {
    const dir = home({ config: customConfig(llm.url) });
    writeFileSync(join(dir, "state.db"), "this is not sqlite, just text that is long enough to have a header".repeat(20));
    const r = await check(dir);
    expect(r.code).toBe(1);
    expect(r.out.join("\n")).toContain(`state.db at ${join(dir, "state.db")} cannot be used`);
    expect(r.out.join("\n")).toContain("move it aside");
  });

  test("an older state.db schema is reported as a warning", async () => {
    const dir = home({ config: customConfig(llm.url) });
    SessionStore.open(join(dir, "state.db")).close();
    const db = new Database(join(dir, "state.db"));
    db.run("UPDATE schema_version SET version = 12");
    db.close();
    const r = await check(dir);
    expect(r.code).toBe(0);
    expect(r.out[0]).toContain("schema v12, integrity ok");
    expect(r.warnings.join("\n")).toContain("state.db is schema v12, older than Hermes' v16");
  });

  test("the CLI prints the OK line alone on stdout and exits 0", async () => {
    const dir = home({ config: customConfig(llm.url), env: `OPENAI_API_KEY=${KEY}\n` });
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../src/main.ts"), "--check"], {
      env: { ...process.env, HERMES_HOME: dir, HERMES_ACP_LOG_LEVEL: "warn" },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out.split("\n").filter(Boolean)).toHaveLength(1);
    expect(out).toStartWith("Hermes ACP check OK (v");
    expect(out).not.toContain(KEY);
  }, 30_000);
});
