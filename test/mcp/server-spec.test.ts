import { describe, expect, test } from "bun:test";
import { configSchema } from "../../src/config/schema.ts";
import { sessionSpecs } from "../../src/mcp/attachments.ts";
import { describeSpec, sanitizeMcpName, specKey, specsFromAcp, specsFromConfig } from "../../src/mcp/server-spec.ts";

function config(raw: unknown) {
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw new Error(parsed.error.message);
  return parsed.data;
}

describe("specsFromAcp", () => {
  test("normalises the three ACP variants", () => {
    const { specs, problems } = specsFromAcp(
      [
        { name: "fs", command: "/bin/mcp-fs", args: ["--stdio"], env: [{ name: "TOKEN", value: "x" }] },
        { type: "http", name: "api", url: "https://mcp.example.com/mcp", headers: [{ name: "Authorization", value: "Bearer t" }] },
        { type: "sse", name: "old", url: "https://old.example.com/sse", headers: [] },
      ],
      "/work/proj",
    );
    expect(problems).toEqual([]);
    expect(specs.map((s) => [s.name, s.transport])).toEqual([["fs", "stdio"], ["api", "http"], ["old", "sse"]]);
    expect(specs[0]).toMatchObject({ command: "/bin/mcp-fs", args: ["--stdio"], env: { TOKEN: "x" }, cwd: "/work/proj" });
    expect(specs[1]).toMatchObject({ url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer t" } });
  });

  test("reports malformed entries instead of throwing", () => {
    const { specs, problems } = specsFromAcp([{ name: "bad", command: "" }, { type: "http", name: "nourl" }, 42, { name: "ok", command: "x", args: [], env: [] }]);
    expect(specs.map((s) => s.name)).toEqual(["ok"]);
    expect(problems.map((p) => p.name)).toEqual(["bad", "nourl", "(unnamed)"]);
    expect(specsFromAcp(undefined).specs).toEqual([]);
  });
});

describe("specsFromConfig", () => {
  test("skips enabled: false, maps timeouts, reports entries without command or url", () => {
    const cfg = config({
      mcp_servers: {
        github: { command: "npx", args: ["-y", "gh-mcp"], env: { PORT: 3000 }, timeout: 30, connect_timeout: 5 },
        off: { command: "nope", enabled: false },
        remote: { url: "https://x.example/mcp", headers: { "X-Key": "k" } },
        legacy: { url: "https://y.example/sse", transport: "sse" },
        empty: null,
      },
    });
    const { specs, problems } = specsFromConfig(cfg.mcp_servers);
    expect(specs.map((s) => s.name)).toEqual(["github", "remote", "legacy"]);
    expect(specs[0]).toMatchObject({ transport: "stdio", env: { PORT: "3000" }, callTimeoutMs: 30_000, connectTimeoutMs: 5000 });
    expect(specs[1]).toMatchObject({ transport: "http", headers: { "X-Key": "k" }, connectTimeoutMs: 10_000, callTimeoutMs: 120_000 });
    expect(specs[2]?.transport).toBe("sse");
    expect(problems).toEqual([{ name: "empty", error: "needs either `command` (stdio) or `url` (HTTP)" }]);
  });

  test("sessionSpecs: config first, client names that clash are skipped, skip_configured_mcp honoured", () => {
    const cfg = config({ mcp_servers: { a: { command: "a" }, b: { command: "b" } } });
    const client = [{ name: "b", command: "client-b", args: [], env: [] }, { name: "c", command: "c", args: [], env: [] }];
    const both = sessionSpecs(cfg, client, "/p");
    expect(both.specs.map((s) => (s.transport === "stdio" ? s.command : ""))).toEqual(["a", "b", "c"]);
    const skipped = sessionSpecs(config({ mcp_servers: { a: { command: "a" } }, acp: { skip_configured_mcp: true } }), client);
    expect(skipped.specs.map((s) => s.name)).toEqual(["b", "c"]);
  });
});

describe("specKey and names", () => {
  test("the key ignores the display name, timeouts and key order but not the command or env", () => {
    const a = specsFromAcp([{ name: "one", command: "x", args: ["1"], env: [{ name: "A", value: "1" }, { name: "B", value: "2" }] }]).specs[0]!;
    const b = specsFromAcp([{ name: "two", command: "x", args: ["1"], env: [{ name: "B", value: "2" }, { name: "A", value: "1" }] }]).specs[0]!;
    const c = specsFromAcp([{ name: "one", command: "x", args: ["1"], env: [{ name: "A", value: "9" }] }]).specs[0]!;
    expect(specKey(a)).toBe(specKey({ ...b, callTimeoutMs: 1 }));
    expect(specKey(a)).not.toBe(specKey(c));
    if (a.transport !== "stdio") throw new Error("stdio expected");
    expect(specKey(a)).not.toBe(specKey({ ...a, cwd: "/elsewhere" }));
  });

  test("sanitising follows Hermes: non [A-Za-z0-9_] → _, case kept", () => {
    expect(sanitizeMcpName("ai.exa/exa")).toBe("ai_exa_exa");
    expect(sanitizeMcpName("My-Tool v2")).toBe("My_Tool_v2");
  });

  test("describeSpec never shows env, headers or query strings", () => {
    const { specs } = specsFromAcp([
      { type: "http", name: "h", url: "https://h.example/mcp?key=SECRET", headers: [{ name: "Authorization", value: "SECRET" }] },
      { name: "s", command: "srv", args: ["--x"], env: [{ name: "TOKEN", value: "SECRET" }] },
    ]);
    for (const spec of specs) expect(describeSpec(spec)).not.toContain("SECRET");
  });
});
