// The build rewrites the ACP SDK's generated schema modules so validators are built on first use
// (scripts/lazy-schemas.ts). The rewritten modules must behave exactly as the originals.
import { describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { types } from "node:util";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lazySchemaModule, SCHEMA_FILE } from "../../scripts/lazy-schemas.ts";

const root = join(import.meta.dir, "../..");
const sdkDist = join(root, "node_modules/@agentclientprotocol/sdk/dist");

/**
 * A copy of the SDK's dist (outside node_modules, so the test preload's plugin leaves it alone) holding,
 * per variant, the original module as `<name>.gen.js` and the rewrite as `<name>.lazy.js`.
 */
function copies(): string {
  const dir = mkdtempSync(join(tmpdir(), "lazy-schemas-"));
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  cpSync(sdkDist, join(dir, "dist"), { recursive: true });
  for (const variant of ["v1/schema", "v1/unstable/schema"]) {
    for (const name of ["zod", "guards"]) {
      const source = readFileSync(join(sdkDist, variant, `${name}.gen.js`), "utf8");
      writeFileSync(join(dir, "dist", variant, `${name}.lazy.js`), lazySchemaModule(source));
    }
    // The lazy guards compose the lazy schemas, as they do in the build.
    const guards = join(dir, "dist", variant, "guards.lazy.js");
    writeFileSync(guards, readFileSync(guards, "utf8").replace('"./zod.gen.js"', '"./zod.lazy.js"'));
  }
  return dir;
}

const SAMPLES: unknown[] = [
  { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true } } },
  { cwd: "/work", mcpServers: [{ name: "a", command: "node", args: ["s.js"], env: [{ name: "K", value: "v" }] }] },
  { cwd: "/work", mcpServers: [{ type: "http", name: "h", url: "http://127.0.0.1:1/mcp", headers: [] }] },
  { cwd: 7 },
  { sessionId: "s", prompt: [{ type: "text", text: "hi" }, { type: "resource_link", uri: "file:///a", name: "a" }] },
  { sessionId: "s", prompt: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
  { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } } },
  { sessionId: "s", update: { sessionUpdate: "tool_call", toolCallId: "t", title: "Read", kind: "read", status: "pending" } },
  { sessionId: "s", options: [{ optionId: "o", name: "Allow", kind: "allow_once" }], toolCall: { toolCallId: "t" } },
  { outcome: { outcome: "selected", optionId: "o" } },
  { mode: "form", message: "m", requestedSchema: { type: "object", properties: {} }, sessionId: "s" },
  { type: "string", title: "t" },
  { action: "accept", content: {} },
  null,
  "text",
  [],
];

describe("lazy ACP schemas", () => {
  const dir = copies();

  for (const variant of ["v1/schema", "v1/unstable/schema"]) {
    test(`${variant}: every validator keeps its name and parses every sample exactly as the original`, async () => {
      const real = await import(join(dir, "dist", variant, "zod.gen.js"));
      const lazy = await import(join(dir, "dist", variant, "zod.lazy.js"));
      expect(Object.keys(lazy).sort()).toEqual(Object.keys(real).sort());
      expect(Object.keys(real).length).toBeGreaterThan(150);
      let compared = 0;
      for (const name of Object.keys(real)) {
        for (const sample of SAMPLES) {
          const a = real[name].safeParse(sample);
          const b = lazy[name].safeParse(sample);
          expect({ name, ok: b.success, data: b.data, issues: b.error?.issues }).toEqual({ name, ok: a.success, data: a.data, issues: a.error?.issues });
          compared++;
        }
      }
      expect(compared).toBe(Object.keys(real).length * SAMPLES.length);
      // `.parse` throws the same way, and a lazy schema composes like a real one.
      expect(() => lazy.zNewSessionRequest.parse({ cwd: 1 })).toThrow();
      expect(lazy.zSessionId.optional().safeParse(undefined).success).toBe(true);
    });

    test(`${variant}: the guards narrow exactly as the original ones`, async () => {
      const real = await import(join(dir, "dist", variant, "guards.gen.js"));
      const lazy = await import(join(dir, "dist", variant, "guards.lazy.js"));
      expect(Object.keys(lazy).sort()).toEqual(Object.keys(real).sort());
      for (const group of Object.keys(real)) {
        for (const check of Object.keys(real[group])) {
          for (const sample of SAMPLES) expect([group, check, lazy[group][check](sample)]).toEqual([group, check, real[group][check](sample)]);
        }
      }
    });
  }

  test("only the SDK's generated v1 schema and guard files are rewritten", () => {
    const sdk = "/x/node_modules/@agentclientprotocol/sdk/dist";
    expect(SCHEMA_FILE.test(`${sdk}/v1/schema/zod.gen.js`)).toBe(true);
    expect(SCHEMA_FILE.test(`${sdk}/v1/unstable/schema/guards.gen.js`)).toBe(true);
    expect(SCHEMA_FILE.test(`${sdk}/v2/schema/zod.gen.js`)).toBe(false);
    expect(SCHEMA_FILE.test(`${sdk}/v1/stable/acp.js`)).toBe(false);
    expect(SCHEMA_FILE.test("/x/src/zod.gen.js")).toBe(false);
  });

  test("a schema file of another shape is refused loudly instead of shipping a broken build", () => {
    expect(() => lazySchemaModule("export const something = 1;\n")).toThrow(/changed shape/);
    expect(() => lazySchemaModule("export const zBroken = z.object({\n")).toThrow(/changed shape/);
  });

  test("the SDK as the tests and the binary load it is the rewritten one", async () => {
    const mod = await import(join(sdkDist, "v1/schema/zod.gen.js"));
    expect(types.isProxy(mod.zNewSessionRequest)).toBe(true);
  });
});
