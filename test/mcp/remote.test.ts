import { afterEach, describe, expect, test } from "bun:test";
import { McpAttachments } from "../../src/mcp/attachments.ts";
import { MCP_CAPABILITIES } from "../../src/mcp/capabilities.ts";
import { McpPool } from "../../src/mcp/pool.ts";
import type { AnyTool } from "../../src/tools/types.ts";
import { startHttpMcpServer, startSseMcpServer, type FixtureServer } from "../fixtures/mcp-http-server.ts";
import { fakeContext, RecordingApprover, remoteSpec } from "./helpers.ts";

let pool = new McpPool();
const servers: FixtureServer[] = [];
afterEach(async () => {
  await pool.closeAll();
  pool = new McpPool();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function tool(tools: AnyTool[], name: string): AnyTool {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no ${name}`);
  return found;
}

describe.each([
  ["http", () => Promise.resolve(startHttpMcpServer())],
  ["sse", startSseMcpServer],
] as const)("%s MCP server", (transport, start) => {
  test("lists tools, sends the configured headers, and calls return results", async () => {
    expect(MCP_CAPABILITIES[transport]).toBe(true);
    const server = await start();
    servers.push(server);
    const att = await McpAttachments.attach("s1", [remoteSpec(transport, server.url, { Authorization: "Bearer t0k" })], { pool });
    expect(att.status()[0]).toMatchObject({ state: "connected", tools: 6 });
    const name = `mcp_echo_${transport}`;
    const approver = new RecordingApprover();
    const echo = await tool(att.tools(), `${name}_echo`).run({ text: "hi" } as never, fakeContext(approver));
    expect(echo).toEqual({ output: "hi" });
    expect(approver.commands).toEqual([`echo-${transport}/echo {"text":"hi"}`]);
    const failed = await tool(att.tools(), `${name}_fail`).run({} as never, fakeContext());
    expect(failed).toEqual({ output: "something broke", failed: true });
    expect(server.authHeaders.length).toBeGreaterThan(2);
    expect(server.authHeaders.every((h) => h === "Bearer t0k")).toBe(true);
  });

  test("a server that goes away makes calls fail clearly, not hang", async () => {
    const server = await start();
    const att = await McpAttachments.attach("s1", [{ ...remoteSpec(transport, server.url), callTimeoutMs: 1500 }], { pool });
    await server.close();
    const started = Date.now();
    const result = await tool(att.tools(), `mcp_echo_${transport}_echo`).run({ text: "x" } as never, fakeContext());
    expect(result.failed).toBe(true);
    expect(result.output).toMatch(/MCP (tool 'echo'|server 'echo-sse')/);
    expect(Date.now() - started).toBeLessThan(2500);
  });
});

test("an unreachable URL is a failed status", async () => {
  const att = await McpAttachments.attach("s1", [remoteSpec("http", "http://127.0.0.1:9/mcp")], { pool });
  expect(att.status()[0]).toMatchObject({ state: "failed", detail: expect.stringContaining("http http://127.0.0.1:9/mcp") });
  expect(att.tools()).toEqual([]);
});
