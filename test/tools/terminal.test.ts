import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CardContent } from "../../src/agent/events.ts";
import { localShell } from "../../src/tools/local-shell.ts";
import { ProcessRegistry } from "../../src/tools/process-registry.ts";
import { createTerminalTool, timeoutMsOf, type TerminalParams } from "../../src/tools/terminal.ts";
import type { ApprovalOutcome, Approver, Shell, ToolContext } from "../../src/tools/types.ts";
import { killAllProcessGroups } from "../../src/util/process-groups.ts";

const dirs: string[] = [];
const registry = new ProcessRegistry();
afterEach(() => {
  registry.killAll();
  killAllProcessGroups();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "terminal-tool-")));
  dirs.push(dir);
  return dir;
}

class FakeApprover implements Approver {
  asked: string[] = [];
  constructor(private readonly outcome: ApprovalOutcome = { approved: true }) {}
  async approveEdit(): Promise<ApprovalOutcome> {
    throw new Error("not used");
  }
  async approveCommand(command: string): Promise<ApprovalOutcome> {
    this.asked.push(command);
    return this.outcome;
  }
}

function context(cwd: string, extra: Partial<ToolContext> = {}): ToolContext & { progressed: CardContent[][] } {
  const progressed: CardContent[][] = [];
  return {
    sessionId: "s1",
    toolCallId: "tc-1",
    cwd,
    signal: new AbortController().signal,
    fs: { readText: async () => "", writeText: async () => {} },
    shell: localShell,
    approver: new FakeApprover(),
    state: new Map(),
    progress: async (u) => {
      if (u.content) progressed.push(u.content);
    },
    progressed,
    ...extra,
  };
}

const tool = createTerminalTool(registry);
const run = (args: TerminalParams, ctx: ToolContext) => tool.run(args as never, ctx);
const parse = (output: string): Record<string, unknown> => JSON.parse(output);

describe("terminal tool", () => {
  test("shape: kind, title, start content, parameter validation", () => {
    expect(tool.kind).toBe("execute");
    expect(tool.title({ command: "ls -la" } as never)).toBe("terminal: ls -la");
    const long = "x".repeat(100);
    expect(tool.title({ command: long } as never)).toBe(`terminal: ${"x".repeat(77)}...`);
    expect(tool.startContent?.({ command: "ls" } as never)).toEqual([{ type: "text", text: "$ ls" }]);
    expect(tool.parameters.safeParse({}).success).toBe(false);
    expect(tool.parameters.safeParse({ command: "ls", background: true, timeout: 5, workdir: "x" }).success).toBe(true);
  });

  test("runs the command and reports output and exit code as JSON", async () => {
    const dir = tempDir();
    const ctx = context(dir);
    const ok = await run({ command: "pwd; echo hi" }, ctx);
    expect(parse(ok.output)).toEqual({ output: `${dir}\nhi\n`, exit_code: 0 });
    expect(ok.failed).toBe(false);
    const bad = await run({ command: "echo oops >&2; exit 2" }, ctx);
    expect(parse(bad.output)).toEqual({ output: "oops\n", exit_code: 2 });
    expect(bad.failed).toBe(true);
  });

  test("asks the approver first; a denial runs nothing and says BLOCKED", async () => {
    const dir = tempDir();
    const approver = new FakeApprover({ approved: false, reason: "User denied this command" });
    const result = await run({ command: "touch marker" }, context(dir, { approver }));
    expect(approver.asked).toEqual(["touch marker"]);
    expect(result.failed).toBe(true);
    expect(result.output.startsWith("BLOCKED: User denied this command")).toBe(true);
    expect(result.output).toContain("NOT consented");
    expect(await Bun.file(join(dir, "marker")).exists()).toBe(false);
  });

  test("keeps an approver reason that is already a BLOCKED message", async () => {
    const dir = tempDir();
    const reason = "BLOCKED (hardline): format a disk. Never.";
    const result = await run({ command: "touch marker" }, context(dir, { approver: new FakeApprover({ approved: false, reason }) }));
    expect(result.output).toBe(reason);
    expect(await Bun.file(join(dir, "marker")).exists()).toBe(false);
  });

  test("a denied background command is not started either", async () => {
    const dir = tempDir();
    const approver = new FakeApprover({ approved: false, reason: "no" });
    const result = await run({ command: "touch marker", background: true }, context(dir, { approver }));
    expect(result.output.startsWith("BLOCKED: no")).toBe(true);
    await Bun.sleep(50);
    expect(await Bun.file(join(dir, "marker")).exists()).toBe(false);
    expect(registry.list("s1")).toEqual([]);
  });

  test("workdir resolves against the session cwd; a missing one is a model-readable error", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "sub"));
    const ok = await run({ command: "pwd", workdir: "sub" }, context(dir));
    expect(parse(ok.output).output).toBe(`${join(dir, "sub")}\n`);
    const missing = await run({ command: "touch marker", workdir: "nope" }, context(dir));
    expect(missing.failed).toBe(true);
    expect(String(parse(missing.output).error)).toContain("does not exist");
  });

  test("timeout kills the command and says so", async () => {
    const r = await run({ command: "sleep 5", timeout: 0.3 }, context(tempDir()));
    const out = parse(r.output);
    expect(out.error).toBe("Command timed out after 0.3s");
    expect(out.exit_code).toBe(-1);
    expect(r.failed).toBe(true);
  });

  test("timeout clamps: default 180 s, at most 3600 s", () => {
    expect(timeoutMsOf(undefined)).toBe(180_000);
    expect(timeoutMsOf(0)).toBe(180_000);
    expect(timeoutMsOf(-3)).toBe(180_000);
    expect(timeoutMsOf(10)).toBe(10_000);
    expect(timeoutMsOf(99_999)).toBe(3_600_000);
    // Config `terminal.timeout` replaces the default; the model's own value still wins, and the cap holds.
    expect(timeoutMsOf(undefined, 300)).toBe(300_000);
    expect(timeoutMsOf(0, 300)).toBe(300_000);
    expect(timeoutMsOf(10, 300)).toBe(10_000);
    expect(timeoutMsOf(undefined, 99_999)).toBe(3_600_000);
    expect(timeoutMsOf(undefined, -1)).toBe(180_000);
  });

  test("passes options to the shell and embeds a client terminal id", async () => {
    const dir = tempDir();
    const seen: { cwd: string; timeoutMs: number; outputLimit: number }[] = [];
    const shell: Shell = {
      async run(_command, options) {
        seen.push({ cwd: options.cwd, timeoutMs: options.timeoutMs, outputLimit: options.outputLimit });
        options.onStart?.({ terminalId: "term_7" });
        return { output: "done", exitCode: 0, timedOut: false, truncated: false };
      },
    };
    const ctx = context(dir, { shell });
    const r = await run({ command: "anything", timeout: 20 }, ctx);
    expect(parse(r.output)).toEqual({ output: "done", exit_code: 0 });
    expect(seen).toEqual([{ cwd: dir, timeoutMs: 20_000, outputLimit: 50_000 }]);
    expect(ctx.progressed).toEqual([[{ type: "terminal", terminalId: "term_7" }]]);
  });

  test("background: returns a process session at once, always through the local registry", async () => {
    const dir = tempDir();
    const shell: Shell = {
      run: async () => {
        throw new Error("the client terminal must not be used for background commands");
      },
    };
    const t0 = performance.now();
    const r = await run({ command: "sleep 30", background: true }, context(dir, { shell }));
    expect(performance.now() - t0).toBeLessThan(500);
    const out = parse(r.output);
    expect(out.output).toBe("Background process started");
    expect(String(out.session_id)).toMatch(/^proc_[0-9a-f]{8}$/);
    expect(out.pid).toBeGreaterThan(0);
    expect(registry.get("s1", String(out.session_id))?.status).toBe("running");
  });

  test("abort stops a foreground command promptly", async () => {
    const ac = new AbortController();
    const pending = run({ command: "sleep 30" }, context(tempDir(), { signal: ac.signal }));
    await Bun.sleep(100);
    const t0 = performance.now();
    ac.abort();
    const r = await pending;
    expect(performance.now() - t0).toBeLessThan(300);
    expect(String(parse(r.output).error)).toContain("interrupted");
  });
});
