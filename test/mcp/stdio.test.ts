import { afterEach, describe, expect, test } from "bun:test";
import { z } from "zod";
import { McpAttachments } from "../../src/mcp/attachments.ts";
import { McpPool } from "../../src/mcp/pool.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { builtinTools } from "../../src/tools/builtin.ts";
import { trackedProcessGroups } from "../../src/util/process-groups.ts";
import type { AnyTool } from "../../src/tools/types.ts";
import { echoSpec, fakeContext, pidAlive, RecordingApprover, waitFor } from "./helpers.ts";

let pool = new McpPool();
afterEach(async () => {
  await pool.closeAll();
  pool = new McpPool();
});

function byName(tools: AnyTool[], name: string): AnyTool {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} in ${tools.map((t) => t.name).join(", ")}`);
  return tool;
}

async function run(tool: AnyTool, args: Record<string, unknown>, approver = new RecordingApprover()) {
  const parsed = tool.parameters.safeParse(args);
  if (!parsed.success) throw new Error("args rejected");
  return tool.run(parsed.data as never, fakeContext(approver));
}

const pidOf = (output: string) => Number(/pid (\d+)/.exec(output)?.[1]);

describe("stdio MCP server", () => {
  test("lists tools with sanitised names, kinds and the server's schema, and they merge into a registry", async () => {
    const att = await McpAttachments.attach("s1", [echoSpec("ai.exa/echo")], { pool });
    expect(att.status()).toEqual([expect.objectContaining({ name: "ai.exa/echo", state: "connected", tools: 7 })]);
    const tools = att.tools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ["crash", "echo", "fail", "my_tool_v2", "now", "slow", "spawn_child"].map((n) => `mcp_ai_exa_echo_${n}`).sort(),
    );
    expect(byName(tools, "mcp_ai_exa_echo_now").kind).toBe("read");
    expect(byName(tools, "mcp_ai_exa_echo_my_tool_v2").kind).toBe("fetch");
    expect(byName(tools, "mcp_ai_exa_echo_echo").kind).toBe("other");
    expect(byName(tools, "mcp_ai_exa_echo_echo").description).toBe("Echoes the text back.");

    const registry = new ToolRegistry([...builtinTools(), ...tools]);
    const spec = registry.specs().find((s) => s.name === "mcp_ai_exa_echo_echo");
    expect(spec?.parameters).toMatchObject({
      type: "object",
      properties: { text: { type: "string", description: "What to echo" }, times: { type: "integer" } },
      required: ["text"],
    });
    expect(JSON.stringify(spec?.parameters)).not.toContain("$schema");
    // Validation is the server's job: the registry passes any object through.
    const parsed = registry.parseCall("mcp_ai_exa_echo_echo", JSON.stringify({ text: "hi", extra: 1 }));
    expect(parsed.ok && z.record(z.string(), z.unknown()).parse(parsed.args)).toEqual({ text: "hi", extra: 1 });
    expect(att.statusLines()[0]).toMatch(/^✓ ai\.exa\/echo: connected, 7 tools — /);
  });

  test("calls return results; read-only tools skip approval, others ask through the approver", async () => {
    const att = await McpAttachments.attach("s1", [echoSpec()], { pool });
    const approver = new RecordingApprover();
    const echoed = await run(byName(att.tools(), "mcp_echo_echo"), { text: "ab", times: 2 }, approver);
    expect(echoed).toEqual({ output: "abab" });
    expect(approver.commands).toEqual(['echo/echo {"text":"ab","times":2}']);

    const now = await run(byName(att.tools(), "mcp_echo_now"), {}, approver);
    expect(now.failed).toBeUndefined();
    expect(now.output).toMatch(/^pid \d+\n\[image: image\/png, 7 bytes\]\n\[resource file:\/\/\/tmp\/x.txt\]\nresource text$/);
    expect(approver.commands).toHaveLength(1);

    const failed = await run(byName(att.tools(), "mcp_echo_fail"), {});
    expect(failed).toEqual({ output: "something broke", failed: true });

    const invalid = await run(byName(att.tools(), "mcp_echo_echo"), { times: 2 });
    expect(invalid.failed).toBe(true);
    expect(invalid.output).toContain("text");
  });

  test("a denied approval does not call the server", async () => {
    const att = await McpAttachments.attach("s1", [echoSpec()], { pool });
    const denied = await run(byName(att.tools(), "mcp_echo_crash"), {}, new RecordingApprover({ approved: false, reason: "no" }));
    expect(denied.failed).toBe(true);
    expect(denied.output).toStartWith("BLOCKED: no.");
    expect(att.status()[0]?.state).toBe("connected");
  });

  test("a crash fails the call and later calls clearly, kills the group, and a new attach starts afresh", async () => {
    const att = await McpAttachments.attach("s1", [echoSpec()], { pool });
    const pid = pidOf((await run(byName(att.tools(), "mcp_echo_now"), {})).output);
    const crashed = await run(byName(att.tools(), "mcp_echo_crash"), {});
    expect(crashed.failed).toBe(true);
    expect(crashed.output).toContain("MCP server 'echo' stopped while running 'crash'");
    expect(crashed.output).toContain("exit code 3");
    expect(crashed.output).toContain("fatal: fixture crashed");
    expect(crashed.output).not.toContain("echo-fixture ready"); // startup stderr is not the crash's cause

    const later = await run(byName(att.tools(), "mcp_echo_echo"), { text: "x" });
    expect(later.failed).toBe(true);
    expect(later.output).toMatch(/^MCP server 'echo' is not available \(server stopped \(exit code 3\)/);
    expect(att.status()[0]).toMatchObject({ state: "failed" });
    expect(await waitFor(() => !pidAlive(pid))).toBe(true);
    expect(trackedProcessGroups()).not.toContain(pid);

    const again = await McpAttachments.attach("s2", [echoSpec()], { pool });
    expect(again.status()[0]?.state).toBe("connected");
    const newPid = pidOf((await run(byName(again.tools(), "mcp_echo_now"), {})).output);
    expect(newPid).not.toBe(pid);
  });

  test("two sessions share one process; the last release kills it and its children", async () => {
    const spec = echoSpec();
    const a = await McpAttachments.attach("sa", [spec], { pool });
    const b = await McpAttachments.attach("sb", [{ ...spec, name: "other-name" }], { pool });
    const pidA = pidOf((await run(byName(a.tools(), "mcp_echo_now"), {})).output);
    const pidB = pidOf((await run(byName(b.tools(), "mcp_other_name_now"), {})).output);
    expect(pidA).toBe(pidB);
    expect(pool.holders(spec)).toBe(2);
    expect(trackedProcessGroups()).toContain(pidA);
    const child = Number((await run(byName(a.tools(), "mcp_echo_spawn_child"), {})).output);
    expect(pidAlive(child)).toBe(true);

    await a.release();
    expect(pool.holders(spec)).toBe(1);
    expect(pidAlive(pidA)).toBe(true);
    expect((await run(byName(b.tools(), "mcp_other_name_echo"), { text: "still" })).output).toBe("still");

    await b.release();
    expect(pool.size).toBe(0);
    expect(pidAlive(pidA)).toBe(false);
    expect(await waitFor(() => !pidAlive(child))).toBe(true);
    expect(trackedProcessGroups()).not.toContain(pidA);
    expect(b.tools()).toEqual([]);
  });

  test("re-attaching a session keeps shared servers and releases the ones it no longer lists", async () => {
    const one = echoSpec("one");
    const two = echoSpec("two", { env: { VARIANT: "2" } });
    const first = await McpAttachments.attach("s1", [one, two], { pool });
    const pidTwo = pidOf((await run(byName(first.tools(), "mcp_two_now"), {})).output);
    const second = await McpAttachments.attach("s1", [one], { pool });
    expect(pool.holders(one)).toBe(1);
    expect(pool.holders(two)).toBe(0);
    expect(await waitFor(() => !pidAlive(pidTwo))).toBe(true);
    await first.release(); // superseded: must not drop what `second` holds
    expect(pool.holders(one)).toBe(1);
    await second.release();
    expect(pool.size).toBe(0);
  });

  test("names that sanitise alike keep only the first server's tools", async () => {
    const att = await McpAttachments.attach("s1", [echoSpec("a.b"), echoSpec("a_b")], { pool });
    expect(pool.size).toBe(1);
    const names = att.tools().map((t) => t.name);
    expect(names).toHaveLength(7);
    expect(new Set(names).size).toBe(7);
  });

  test("a bad command or a server that exits at once is a failed status, never a throw", async () => {
    const started = Date.now();
    const att = await McpAttachments.attach(
      "s1",
      [
        echoSpec("missing", { command: "/nonexistent/mcp-server-xyz" }),
        echoSpec("dies", { command: process.execPath, args: ["-e", "console.error('boom: bad token'); process.exit(2)"] }),
        echoSpec("good"),
      ],
      { pool, problems: [{ name: "broken", error: "url is not a valid URL" }] },
    );
    const status = att.status();
    expect(status.map((s) => [s.name, s.state])).toEqual([["missing", "failed"], ["dies", "failed"], ["good", "connected"], ["broken", "failed"]]);
    expect(status[0]?.detail).toContain("could not start '/nonexistent/mcp-server-xyz");
    expect(status[1]?.detail).toContain("exit code 2");
    expect(status[1]?.detail).toContain("boom: bad token");
    expect(att.tools().every((t) => t.name.startsWith("mcp_good_"))).toBe(true);
    expect(att.statusLines()[0]).toStartWith("✗ missing: failed — could not start");
    expect(Date.now() - started).toBeLessThan(4000);
  });

  test("a server that never answers times out", async () => {
    const att = await McpAttachments.attach(
      "s1",
      [echoSpec("mute", { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], connectTimeoutMs: 300 })],
      { pool },
    );
    expect(att.status()[0]).toMatchObject({ state: "failed", detail: expect.stringContaining("no answer within 0.3 s") });
    expect(pool.size).toBe(0);
  });

  test("cancelling a running call throws an AbortError and leaves the server usable", async () => {
    const att = await McpAttachments.attach("s1", [echoSpec()], { pool });
    const controller = new AbortController();
    const call = byName(att.tools(), "mcp_echo_slow").run({ ms: 5000 } as never, fakeContext(undefined, controller.signal));
    setTimeout(() => controller.abort(), 50);
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect((await run(byName(att.tools(), "mcp_echo_echo"), { text: "ok" })).output).toBe("ok");
  });

  test("a call that outlives the tool timeout fails with a clear message", async () => {
    const att = await McpAttachments.attach("s1", [echoSpec("slowpoke", { callTimeoutMs: 200 })], { pool });
    const result = await run(byName(att.tools(), "mcp_slowpoke_slow"), { ms: 2000 });
    expect(result).toEqual({ output: expect.stringContaining("timed out after 0.2 s"), failed: true });
  });
});
