import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { defineTool } from "../../src/tools/types.ts";

const echo = defineTool({
  name: "echo",
  description: "Echo text back.",
  parameters: z.object({ text: z.string().describe("what to echo"), times: z.number().int().min(1).optional() }),
  kind: "other",
  title: (a) => `echo ${a.text}`,
  locations: () => [],
  run: (a) => Promise.resolve({ output: a.text }),
});
const noArgs = defineTool({
  name: "ping",
  description: "Ping.",
  parameters: z.object({}),
  kind: "other",
  title: () => "ping",
  locations: () => [],
  run: () => Promise.resolve({ output: "pong" }),
});

const registry = new ToolRegistry([echo, noArgs]);

describe("ToolRegistry", () => {
  test("list, get, duplicate names", () => {
    expect(registry.list().map((t) => t.name)).toEqual(["echo", "ping"]);
    expect(registry.get("echo")).toBe(echo);
    expect(registry.get("nope")).toBeUndefined();
    expect(() => new ToolRegistry([echo, echo])).toThrow("Duplicate tool name: echo");
  });

  test("specs: JSON schema from zod, without $schema or safe-integer noise, cached", () => {
    const specs = registry.specs();
    expect(specs[0]).toEqual({
      name: "echo",
      description: "Echo text back.",
      parameters: {
        type: "object",
        properties: { text: { type: "string", description: "what to echo" }, times: { type: "integer", minimum: 1 } },
        required: ["text"],
      },
    });
    expect(registry.specs()).toBe(specs);
  });

  const cases: [string, string, string, string | null][] = [
    ["valid", "echo", '{"text":"hi"}', null],
    ["empty string means {}", "ping", "", null],
    ["whitespace means {}", "ping", "  \n", null],
    ["unknown tool lists the available ones", "nope", "{}", "Unknown tool 'nope'. Available tools: echo, ping."],
    ["invalid JSON", "echo", '{"text":', "Invalid JSON arguments for echo: "],
    ["not an object", "echo", "[1]", "Invalid arguments for echo: expected a JSON object, received an array. Send a JSON object."],
    ["missing field", "echo", "{}", "Invalid arguments for echo: text: expected string (missing)"],
    ["wrong types, one line per issue", "echo", '{"text":5,"times":0}', "Invalid arguments for echo: text: expected string, received number;\ntimes: Too small: expected number to be >=1"],
  ];
  for (const [label, name, raw, error] of cases) {
    test(`parseCall: ${label}`, () => {
      const r = registry.parseCall(name, raw);
      if (error === null) {
        expect(r.ok).toBe(true);
      } else {
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.error.startsWith(error)).toBe(true);
      }
    });
  }

  test("parseCall returns the parsed args and the tool; a double-encoded object is accepted", () => {
    const r = registry.parseCall("echo", '{"text":"hi","extra":1}');
    expect(r).toEqual({ ok: true, tool: echo, args: { text: "hi" } });
    const doubled = registry.parseCall("echo", JSON.stringify(JSON.stringify({ text: "x" })));
    expect(doubled).toEqual({ ok: true, tool: echo, args: { text: "x" } });
  });

  test("invalid JSON error ends by asking for an object", () => {
    const r = registry.parseCall("echo", "{bad");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toEndWith(". Send a JSON object.");
  });
});
