import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Services } from "../../src/app/services.ts";
import { detectionKey } from "../../src/app/provider-cache.ts";
import { tempDir } from "../helpers/harness.ts";

function home() {
  const h = join(tempDir(), "hermes");
  mkdirSync(h, { recursive: true });
  return h;
}

describe("provider detection cache for initialize", () => {
  test("a cached answer is used only while .env, config.yaml and the provider env are unchanged", async () => {
    const h = home();
    const env: Record<string, string | undefined> = { HERMES_HOME: h, OPENROUTER_API_KEY: "sk-or-cache-test-1234567890" };
    expect(await new Services({ ...env }).detectProviderEarly()).toBe("openrouter");
    const cache = readFileSync(join(h, ".acp-provider-cache.json"), "utf8");
    expect(cache).not.toContain("sk-or-cache-test");

    // Same inputs: the same answer (from the cache).
    expect(await new Services({ ...env }).detectProviderEarly()).toBe("openrouter");

    // A new key in the environment changes the answer.
    expect(await new Services({ HERMES_HOME: h, ANTHROPIC_API_KEY: "sk-ant-cache-test-123456" }).detectProviderEarly()).toBe("anthropic");

    // Editing config.yaml changes the key even within the same second.
    writeFileSync(join(h, "config.yaml"), "model:\n  provider: deepseek\n");
    utimesSync(join(h, "config.yaml"), new Date(), new Date(Date.now() + 5000));
    expect(await new Services({ ...env, DEEPSEEK_API_KEY: "sk-deepseek-123456789" }).detectProviderEarly()).toBe("deepseek");
  });

  test("the key changes with any relevant input and ignores unrelated env", () => {
    const h = home();
    const paths = new Services({ HERMES_HOME: h }).paths;
    const base = detectionKey(paths, { OPENAI_API_KEY: "a" });
    expect(detectionKey(paths, { OPENAI_API_KEY: "a", UNRELATED: "x" })).toBe(base);
    expect(detectionKey(paths, { OPENAI_API_KEY: "b" })).not.toBe(base);
    expect(detectionKey(paths, { OPENAI_API_KEY: "a", HERMES_INFERENCE_PROVIDER: "openai" })).not.toBe(base);
    writeFileSync(join(h, ".env"), "X=1\n");
    expect(detectionKey(paths, { OPENAI_API_KEY: "a" })).not.toBe(base);
  });
});
