import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadDotEnv } from "../../src/config/env.ts";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "hermes-env-"));
}

describe("loadDotEnv", () => {
  test("missing file: loaded false, env untouched", () => {
    const env: Record<string, string | undefined> = { A: "1" };
    expect(loadDotEnv(join(tempDir(), ".env"), env)).toEqual({ loaded: false, keys: [] });
    expect(env).toEqual({ A: "1" });
  });

  test("file values override stale shell values, others are kept", () => {
    const path = join(tempDir(), ".env");
    writeFileSync(path, "# keys\nOPENROUTER_API_KEY=sk-or-new\nexport EXTRA='a b'\nEMPTY=\n");
    const env: Record<string, string | undefined> = { OPENROUTER_API_KEY: "sk-or-stale", SHELL_ONLY: "x" };
    const result = loadDotEnv(path, env);
    expect(result.loaded).toBe(true);
    expect(result.keys.sort()).toEqual(["EMPTY", "EXTRA", "OPENROUTER_API_KEY"]);
    expect(env).toEqual({ OPENROUTER_API_KEY: "sk-or-new", SHELL_ONLY: "x", EXTRA: "a b", EMPTY: "" });
  });

  test("the result never carries values", () => {
    const path = join(tempDir(), ".env");
    writeFileSync(path, "SECRET_TOKEN=hunter2\n");
    expect(JSON.stringify(loadDotEnv(path, {}))).not.toContain("hunter2");
  });

  test("an unreadable path reports an error instead of throwing", () => {
    const dir = join(tempDir(), ".env");
    mkdirSync(dir);
    const result = loadDotEnv(dir, {});
    expect(result.loaded).toBe(false);
    expect(result.error).toContain(dir);
  });

  test("unreadable permissions report an error (skipped as root)", () => {
    if (process.getuid?.() === 0) return;
    const path = join(tempDir(), ".env");
    writeFileSync(path, "A=1\n");
    chmodSync(path, 0o000);
    expect(loadDotEnv(path, {}).error).toContain("EACCES");
  });
});
