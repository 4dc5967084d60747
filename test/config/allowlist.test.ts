import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addToCommandAllowlist } from "../../src/config/allowlist.ts";
import { loadConfig } from "../../src/config/load.ts";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "hermes-allow-"));
}

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

const SHARED = `# Hermes Agent configuration
model:
  default: anthropic/claude-opus-4.6 # the big one
  provider: openrouter

# Patterns approved with "always"
command_allowlist:
  - recursive delete # added last week

terminal:
  backend: local
  timeout: 180
other: [1, 2]
`;

describe("addToCommandAllowlist", () => {
  test("appends while keeping every other key and comment", async () => {
    const path = join(tempDir(), "config.yaml");
    writeFileSync(path, SHARED);
    await addToCommandAllowlist(path, "pipe to shell");
    const text = readFileSync(path, "utf8");
    expect(text).toBe(SHARED.replace("  - recursive delete # added last week\n", "  - recursive delete # added last week\n  - pipe to shell\n"));
    const loaded = loadConfig(path);
    expect(loaded.ok && loaded.config.command_allowlist).toEqual(["recursive delete", "pipe to shell"]);
  });

  test("is idempotent: no duplicate entries, file untouched", async () => {
    const path = join(tempDir(), "config.yaml");
    writeFileSync(path, SHARED);
    await addToCommandAllowlist(path, "recursive delete");
    await addToCommandAllowlist(path, "  recursive delete  ");
    expect(readFileSync(path, "utf8")).toBe(SHARED);
    await addToCommandAllowlist(path, "x");
    await addToCommandAllowlist(path, "x");
    expect(readFileSync(path, "utf8").match(/- x$/gm)?.length).toBe(1);
  });

  test("creates the file (and its directory) with mode 0600", async () => {
    const path = join(tempDir(), "nested", "config.yaml");
    await addToCommandAllowlist(path, "git push --force");
    expect(readFileSync(path, "utf8")).toBe("command_allowlist:\n  - git push --force\n");
    expect(mode(path)).toBe(0o600);
  });

  test("keeps the existing file mode", async () => {
    const path = join(tempDir(), "config.yaml");
    writeFileSync(path, "model: x\n", { mode: 0o640 });
    await addToCommandAllowlist(path, "a");
    expect(mode(path)).toBe(0o640);
    expect(readFileSync(path, "utf8")).toBe("model: x\ncommand_allowlist:\n  - a\n");
  });

  test("a comment-only file keeps its comment", async () => {
    const path = join(tempDir(), "config.yaml");
    writeFileSync(path, "# my settings\n");
    await addToCommandAllowlist(path, "a");
    const text = readFileSync(path, "utf8");
    expect(text.startsWith("# my settings\n")).toBe(true);
    expect(text).toContain("command_allowlist:\n  - a\n");
  });

  test("an empty key or a single string becomes a list", async () => {
    const dir = tempDir();
    const empty = join(dir, "a.yaml");
    writeFileSync(empty, "command_allowlist:\nfoo: 1 # keep\n");
    await addToCommandAllowlist(empty, "a");
    expect(readFileSync(empty, "utf8")).toBe("command_allowlist:\n  - a\nfoo: 1 # keep\n");
    const single = join(dir, "b.yaml");
    writeFileSync(single, "command_allowlist: old\n");
    await addToCommandAllowlist(single, "new");
    const loaded = loadConfig(single);
    expect(loaded.ok && loaded.config.command_allowlist).toEqual(["old", "new"]);
  });

  test("concurrent adds are serialised: none is lost", async () => {
    const path = join(tempDir(), "config.yaml");
    writeFileSync(path, SHARED);
    await Promise.all(["a", "b", "c", "d"].map((p) => addToCommandAllowlist(path, p)));
    const loaded = loadConfig(path);
    expect(loaded.ok && loaded.config.command_allowlist).toEqual(["recursive delete", "a", "b", "c", "d"]);
  });

  test("atomic: no temp files are left behind", async () => {
    const dir = tempDir();
    const path = join(dir, "config.yaml");
    await addToCommandAllowlist(path, "a");
    await addToCommandAllowlist(path, "b");
    expect(readdirSync(dir)).toEqual(["config.yaml"]);
  });

  test("writes through a symlinked config instead of replacing the link", async () => {
    const dir = tempDir();
    const real = join(dir, "real.yaml");
    const link = join(dir, "config.yaml");
    writeFileSync(real, "model: x\n");
    symlinkSync(real, link);
    await addToCommandAllowlist(link, "a");
    expect(readFileSync(real, "utf8")).toContain("- a");
    expect(readFileSync(link, "utf8")).toBe(readFileSync(real, "utf8"));
  });

  test("refuses to rewrite a broken file, leaving it untouched", async () => {
    const path = join(tempDir(), "config.yaml");
    const broken = "model: [a, b\nx: 1\n";
    writeFileSync(path, broken);
    await expect(addToCommandAllowlist(path, "a")).rejects.toThrow(/not valid YAML/);
    expect(readFileSync(path, "utf8")).toBe(broken);
  });

  test("refuses an allowlist that is a mapping", async () => {
    const path = join(tempDir(), "config.yaml");
    writeFileSync(path, "command_allowlist:\n  a: 1\n");
    await expect(addToCommandAllowlist(path, "b")).rejects.toThrow(/mapping/);
  });

  test("rejects an empty pattern", async () => {
    await expect(addToCommandAllowlist(join(tempDir(), "config.yaml"), "  ")).rejects.toThrow(/empty/);
  });
});
