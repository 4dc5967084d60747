import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HeadTailBuffer, localShell } from "../../src/tools/local-shell.ts";
import type { RunOptions } from "../../src/tools/types.ts";
import { killAllProcessGroups, trackedProcessGroups, trackProcessGroup } from "../../src/util/process-groups.ts";
import { pidAlive } from "../helpers/processes.ts";

const dirs: string[] = [];
function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "local-shell-")));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  killAllProcessGroups();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});


function opts(cwd: string, extra: Partial<RunOptions> = {}): RunOptions {
  return { cwd, timeoutMs: 10_000, signal: new AbortController().signal, outputLimit: 50_000, ...extra };
}

function pidsIn(output: string): number[] {
  return [...output.matchAll(/PID=(\d+)/g)].map((m) => Number(m[1]));
}

describe("localShell", () => {
  test("captures stdout and stderr in order, with the exit code", async () => {
    const r = await localShell.run("echo one; echo two >&2; echo three; exit 3", opts(tempDir()));
    expect(r.output).toBe("one\ntwo\nthree\n");
    expect(r.exitCode).toBe(3);
    expect(r.timedOut).toBe(false);
    expect(r.truncated).toBe(false);
  });

  test("hands output over as it arrives, before the command ends; a throwing hook changes nothing", async () => {
    const seen: { text: string; at: number }[] = [];
    const started = performance.now();
    const r = await localShell.run("echo first; sleep 0.4; echo second", opts(tempDir(), { onOutput: (text) => seen.push({ text, at: performance.now() - started }) }));
    const ended = performance.now() - started;
    expect(seen.map((s) => s.text).join("")).toBe(r.output);
    expect(r.output).toBe("first\nsecond\n");
    expect(seen[0]!.text).toBe("first\n");
    expect(seen[0]!.at).toBeLessThan(ended - 300);
    const broken = () => {
      throw new Error("display broke");
    };
    const quiet = await localShell.run("echo kept", opts(tempDir(), { onOutput: broken }));
    expect(quiet.output).toBe("kept\n");
  });

  test("runs in the given cwd with extra env and stdin closed", async () => {
    const dir = tempDir();
    let started: number | undefined;
    const r = await localShell.run('pwd; echo "$FOO"; cat; echo "pager=$PAGER"', {
      ...opts(dir, { env: { FOO: "bar" } }),
      onStart: ({ pid }) => {
        started = pid;
      },
    });
    expect(r.output).toBe(`${dir}\nbar\npager=cat\n`);
    expect(r.exitCode).toBe(0);
    expect(started).toBeGreaterThan(0);
  });

  test("a missing cwd is a readable error", async () => {
    await expect(localShell.run("true", opts(join(tempDir(), "nope")))).rejects.toThrow(/Working directory does not exist/);
  });

  test("timeout kills the whole process group", async () => {
    const t0 = performance.now();
    const r = await localShell.run("sleep 30 & echo PID=$!; sleep 30", opts(tempDir(), { timeoutMs: 300 }));
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    const [grandchild] = pidsIn(r.output);
    expect(grandchild).toBeGreaterThan(0);
    await Bun.sleep(50);
    expect(pidAlive(grandchild ?? 0)).toBe(false);
  });

  test("abort kills the group within 300 ms", async () => {
    const ac = new AbortController();
    const dir = tempDir();
    const pending = localShell.run("sleep 30 & echo PID=$!; echo PID=$$; sleep 30", opts(dir, { signal: ac.signal }));
    await Bun.sleep(150);
    const t0 = performance.now();
    ac.abort();
    const r = await pending;
    expect(performance.now() - t0).toBeLessThan(300);
    const pids = pidsIn(r.output);
    expect(pids.length).toBe(2);
    await Bun.sleep(50);
    for (const pid of pids) expect(pidAlive(pid)).toBe(false);
  });

  test("an already-aborted signal runs nothing", async () => {
    const ac = new AbortController();
    ac.abort();
    const dir = tempDir();
    const r = await localShell.run("touch marker", opts(dir, { signal: ac.signal }));
    expect(r.exitCode).toBeNull();
    expect(await Bun.file(join(dir, "marker")).exists()).toBe(false);
  });

  test("caps output keeping head and tail with a marker", async () => {
    const r = await localShell.run("seq 1 20000", opts(tempDir(), { outputLimit: 1000 }));
    expect(r.truncated).toBe(true);
    expect(r.output.startsWith("1\n2\n3\n")).toBe(true);
    expect(r.output.endsWith("19999\n20000\n")).toBe(true);
    const m = /\[\.\.\. (\d+) bytes omitted \.\.\.\]/.exec(r.output);
    expect(m).not.toBeNull();
    const total = Number((await Bun.$`seq 1 20000 | wc -c`.text()).trim());
    expect(Number(m?.[1])).toBe(total - 1000);
  });

  test("does not wait for a detached background child holding the pipe", async () => {
    const t0 = performance.now();
    const r = await localShell.run("sleep 30 & echo PID=$!", opts(tempDir()));
    expect(performance.now() - t0).toBeLessThan(1_500);
    expect(r.exitCode).toBe(0);
    const [child] = pidsIn(r.output);
    // Left running on purpose, but still tracked so it dies with the agent.
    expect(pidAlive(child ?? 0)).toBe(true);
    expect(trackedProcessGroups().length).toBeGreaterThan(0);
    killAllProcessGroups();
    await Bun.sleep(50);
    expect(pidAlive(child ?? 0)).toBe(false);
  });
});

describe("HeadTailBuffer", () => {
  test("keeps everything under the limit", () => {
    const b = new HeadTailBuffer(100);
    b.push(new TextEncoder().encode("hello "));
    b.push(new TextEncoder().encode("world"));
    expect(b.text()).toBe("hello world");
    expect(b.truncated).toBe(false);
  });

  test("never splits a multi-byte character", () => {
    const b = new HeadTailBuffer(11);
    for (let i = 0; i < 20; i++) b.push(new TextEncoder().encode("é"));
    expect(b.truncated).toBe(true);
    expect(b.text()).not.toContain("\uFFFD");
    expect(b.text()).toMatch(/^é+\n\n\[\.\.\. \d+ bytes omitted \.\.\.\]\n\né+$/);
  });
});

describe("process groups", () => {
  test("killAllProcessGroups kills every tracked group", async () => {
    const procs = [1, 2].map(() => Bun.spawn(["/bin/sh", "-c", "sleep 30 & sleep 30"], { detached: true, stdio: ["ignore", "ignore", "ignore"] }));
    for (const p of procs) trackProcessGroup(p.pid);
    expect(killAllProcessGroups()).toBeGreaterThanOrEqual(2);
    await Promise.all(procs.map((p) => p.exited));
    for (const p of procs) expect(p.signalCode).toBe("SIGKILL");
    expect(trackedProcessGroups()).toEqual([]);
  });
});
