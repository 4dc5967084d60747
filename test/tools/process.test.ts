import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localShell } from "../../src/tools/local-shell.ts";
import { createProcessTool, type ProcessParams } from "../../src/tools/process.ts";
import { OutputRing, ProcessRegistry } from "../../src/tools/process-registry.ts";
import { createTerminalTool } from "../../src/tools/terminal.ts";
import type { ApprovalOutcome, ToolContext } from "../../src/tools/types.ts";
import { killAllProcessGroups, trackedProcessGroups } from "../../src/util/process-groups.ts";
import { pidAlive } from "../helpers/processes.ts";

const dirs: string[] = [];
let counter = 0;
const registry = new ProcessRegistry({ newId: () => `proc_${(++counter).toString(16).padStart(8, "0")}` });
afterEach(() => {
  registry.killAll();
  killAllProcessGroups();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "process-tool-")));
  dirs.push(dir);
  return dir;
}


const approve = async (): Promise<ApprovalOutcome> => ({ approved: true });
function context(sessionId: string, cwd: string, signal = new AbortController().signal): ToolContext {
  return {
    sessionId,
    toolCallId: "tc-1",
    cwd,
    signal,
    fs: { readText: async () => "", writeText: async () => {} },
    shell: localShell,
    approver: { approveCommand: approve, approveEdit: approve },
    state: new Map(),
    progress: async () => {},
  };
}

const terminal = createTerminalTool(registry);
const proc = createProcessTool(registry);
const parse = (output: string): Record<string, unknown> => JSON.parse(output);

async function start(ctx: ToolContext, command: string): Promise<string> {
  const r = await terminal.run({ command, background: true } as never, ctx);
  return String(parse(r.output).session_id);
}
async function call(ctx: ToolContext, args: ProcessParams) {
  const r = await proc.run(args as never, ctx);
  return { ...r, data: parse(r.output) };
}

describe("process tool", () => {
  test("shape: kind and titles", () => {
    expect(proc.kind).toBe("execute");
    expect(proc.title({ action: "poll", session_id: "proc_1" } as never)).toBe("process poll: proc_1");
    expect(proc.title({ action: "list" } as never)).toBe("process list");
    expect(proc.parameters.safeParse({ action: "explode" }).success).toBe(false);
  });

  test("poll, wait and log a process that exits", async () => {
    const ctx = context("s1", tempDir());
    const id = await start(ctx, "echo first; echo err >&2; sleep 0.2; echo last; exit 3");
    const polled = await call(ctx, { action: "poll", session_id: id });
    expect(polled.data.status).toBe("running");
    expect(polled.data.exit_code).toBeUndefined();

    const waited = await call(ctx, { action: "wait", session_id: id, timeout: 5 });
    expect(waited.data).toMatchObject({ session_id: id, status: "exited", exit_code: 3, output: "first\nerr\nlast\n" });

    const log = await call(ctx, { action: "log", session_id: id });
    expect(log.data).toMatchObject({ output: "first\nerr\nlast", total_lines: 3, showing: "lines 0-2 of 3" });
    const page = await call(ctx, { action: "log", session_id: id, offset: 1, limit: 1 });
    expect(page.data.output).toBe("err");
    const tail = await call(ctx, { action: "log", session_id: id, limit: 2 });
    expect(tail.data.output).toBe("err\nlast");
  });

  test("wait times out on a running process and honours the abort signal", async () => {
    const ac = new AbortController();
    const ctx = context("s1", tempDir(), ac.signal);
    const id = await start(ctx, "echo started; sleep 30");
    const timedOut = await call(ctx, { action: "wait", session_id: id, timeout: 0.2 });
    expect(timedOut.data.status).toBe("timeout");
    const pending = call(ctx, { action: "wait", session_id: id, timeout: 30 });
    await Bun.sleep(50);
    const t0 = performance.now();
    ac.abort();
    const interrupted = await pending;
    expect(performance.now() - t0).toBeLessThan(100);
    expect(interrupted.data.status).toBe("interrupted");
    expect(interrupted.data.output).toBe("started\n");
  });

  test("write and submit feed stdin", async () => {
    const ctx = context("s1", tempDir());
    const id = await start(ctx, 'read a; read b; echo "got $a and $b"');
    const w = await call(ctx, { action: "write", session_id: id, data: "one\n" });
    expect(w.data).toEqual({ session_id: id, status: "ok", bytes_written: 4 });
    await call(ctx, { action: "submit", session_id: id, data: "two" });
    const waited = await call(ctx, { action: "wait", session_id: id, timeout: 5 });
    expect(waited.data).toMatchObject({ status: "exited", exit_code: 0, output: "got one and two\n" });
    const late = await call(ctx, { action: "write", session_id: id, data: "x" });
    expect(late.failed).toBe(true);
    expect(String(late.data.error)).toContain("already finished");
  });

  test("kill terminates the whole group", async () => {
    const ctx = context("s1", tempDir());
    const id = await start(ctx, "sleep 30 & echo PID=$!; sleep 30");
    await Bun.sleep(100);
    const grandchild = Number(/PID=(\d+)/.exec(String((await call(ctx, { action: "poll", session_id: id })).data.output))?.[1]);
    expect(pidAlive(grandchild)).toBe(true);
    const killed = await call(ctx, { action: "kill", session_id: id });
    expect(killed.data).toMatchObject({ session_id: id, status: "killed" });
    expect(killed.failed).toBe(false);
    await Bun.sleep(50);
    expect(pidAlive(grandchild)).toBe(false);
    const again = await call(ctx, { action: "kill", session_id: id });
    expect(again.data.status).toBe("already_exited");
  });

  test("list shows only the calling session's processes; others cannot touch them", async () => {
    const dir = tempDir();
    const a = context("session-a", dir);
    const b = context("session-b", dir);
    const idA = await start(a, "sleep 30");
    const idB = await start(b, "sleep 30");
    const listA = await call(a, { action: "list" });
    const processes = listA.data.processes;
    expect(Array.isArray(processes) ? processes.map((p: { session_id: string }) => p.session_id) : []).toEqual([idA]);
    expect(listA.data.processes).toMatchObject([{ session_id: idA, command: "sleep 30", status: "running", cwd: dir }]);

    const stolen = await call(b, { action: "kill", session_id: idA });
    expect(stolen.failed).toBe(true);
    expect(stolen.data.status).toBe("not_found");
    expect(registry.get("session-a", idA)?.status).toBe("running");

    expect(registry.killAllForSession("session-a")).toBe(1);
    expect((await call(a, { action: "list" })).data.processes).toEqual([]);
    expect(registry.get("session-b", idB)?.status).toBe("running");
  });

  test("missing session_id and unknown ids are model-readable errors", async () => {
    const ctx = context("s1", tempDir());
    const missing = await call(ctx, { action: "poll" });
    expect(missing.failed).toBe(true);
    expect(missing.data.error).toBe("session_id is required for action 'poll'");
    const unknown = await call(ctx, { action: "log", session_id: "proc_nope" });
    expect(String(unknown.data.error)).toContain("No background process 'proc_nope'");
  });

  test("background groups are tracked for kill-at-exit", async () => {
    const ctx = context("s1", tempDir());
    const id = await start(ctx, "sleep 30");
    const pid = registry.get("s1", id)?.pid ?? 0;
    expect(trackedProcessGroups()).toContain(pid);
    killAllProcessGroups();
    await registry.get("s1", id)?.done;
    expect(registry.get("s1", id)?.status).toBe("exited");
    expect(registry.get("s1", id)?.signalCode).toBe("SIGKILL");
  });
});

describe("OutputRing", () => {
  test("keeps the last bytes on a character boundary", () => {
    const ring = new OutputRing(6);
    for (const s of ["abc", "déf", "ghé"]) ring.push(new TextEncoder().encode(s));
    expect(ring.total).toBe(11);
    expect(ring.text()).toBe("fghé");
  });
});
