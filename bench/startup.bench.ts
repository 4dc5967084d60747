// Spawn → `initialize` and → `session/new` of the compiled binary versus a bare compiled Bun program, same run.
import { $ } from "bun";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildHost } from "../scripts/build.ts";
import { median, ms, type BenchRow } from "./types.ts";

const root = join(import.meta.dir, "..");

async function buildBare(): Promise<string> {
  const out = join(root, "dist/bench-bare-agent");
  await $`bun build --compile --minify ${join(import.meta.dir, "fixtures/bare-agent.ts")} --outfile ${out}`.quiet();
  return out;
}

function peakRssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(status);
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

type Sample = { init: number; newSession: number; rss: number };

async function sample(cmd: string[], env: Record<string, string | undefined>): Promise<Sample> {
  const t0 = performance.now();
  const proc = Bun.spawn(cmd, { stdin: "pipe", stdout: "pipe", stderr: "ignore", env });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  const nextResponse = async (id: number): Promise<number> => {
    for (;;) {
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (JSON.parse(line).id === id) return performance.now() - t0;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`${cmd[0]} closed stdout`);
      buf += decoder.decode(value, { stream: true });
    }
  };
  proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`);
  proc.stdin.flush();
  const init = await nextResponse(0);
  proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: tmpdir(), mcpServers: [] } })}\n`);
  proc.stdin.flush();
  const newSession = await nextResponse(1);
  const rss = peakRssMb(proc.pid);
  proc.stdin.end();
  await proc.exited;
  return { init, newSession, rss };
}

export async function benchStartup(runs = 7): Promise<BenchRow[]> {
  const binary = existsSync(join(root, "dist/hermes-acp")) && !process.argv.includes("--rebuild") ? join(root, "dist/hermes-acp") : await buildHost();
  const bare = await buildBare();
  const home = mkdtempSync(join(tmpdir(), "hermes-bench-"));
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "config.yaml"), "model:\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n  default: bench\n");
  const env = { ...process.env, HERMES_HOME: home, HERMES_ACP_LOG_LEVEL: "warn" };
  const ours: Sample[] = [];
  const floor: Sample[] = [];
  await sample([binary], env);
  await sample([bare], env);
  for (let i = 0; i < runs; i++) {
    // Interleaved so machine noise hits both alike.
    ours.push(await sample([binary], env));
    floor.push(await sample([bare], env));
  }
  const m = (xs: Sample[], k: keyof Sample) => median(xs.map((x) => x[k]));
  const initRatio = m(ours, "init") / m(floor, "init");
  const newRatio = m(ours, "newSession") / m(floor, "newSession");
  return [
    { name: "spawn → initialize (binary vs bare Bun)", measured: ms(m(ours, "init")), baseline: ms(m(floor, "init")), ratio: initRatio, target: "≤ 1.5×", met: initRatio <= 1.5 },
    { name: "spawn → session/new (binary vs bare Bun)", measured: ms(m(ours, "newSession")), baseline: ms(m(floor, "newSession")), ratio: newRatio, target: "≤ 2×", met: newRatio <= 2 },
    { name: "peak RSS after session/new", measured: `${m(ours, "rss").toFixed(1)} MB`, baseline: `${m(floor, "rss").toFixed(1)} MB`, ratio: m(ours, "rss") / m(floor, "rss"), target: "≤ 60 MB", met: m(ours, "rss") <= 60 },
  ];
}

if (import.meta.main) {
  const { printTable } = await import("./table.ts");
  printTable(await benchStartup());
}
