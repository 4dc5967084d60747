// Peak RSS (VmHWM) of the compiled binary: idle (initialize answered, app loaded) and after a 50-turn session
// against the fake LLM server (short text replies; every 5th turn reads a file with read_file first), beside the
// bare compiled Bun program answering initialize. Run: bun bench/memory.bench.ts
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reply, startFakeLlm } from "../test/helpers/fake-llm-server.ts";
import { AgentProcess, benchEnv, benchHome, ensureBare, ensureBinary, peakRssMb } from "./agent-process.ts";
import type { BenchRow } from "./types.ts";

const TURNS = Number(process.env.BENCH_MEMORY_TURNS ?? 50);
const IDLE_TARGET_MB = 60;
const GROWTH_TARGET = 2;
const mb = (v: number) => `${v.toFixed(1)} MB`;

export type MemoryResult = { bareMb: number; idleMb: number; afterTurnsMb: number; turns: number };

export async function measureMemory(): Promise<MemoryResult> {
  const [binary, bare] = await Promise.all([ensureBinary(), ensureBare()]);
  const llm = await startFakeLlm();
  const home = benchHome(llm.url);
  const cwd = mkdtempSync(join(tmpdir(), "hermes-memory-cwd-"));
  writeFileSync(join(cwd, "notes.md"), Array.from({ length: 300 }, (_, i) => `- note ${i}: ${"the quick brown fox ".repeat(4)}`).join("\n"));
  const env = benchEnv(home);
  try {
    const floor = new AgentProcess([bare], env);
    let bareMb: number;
    try {
      await floor.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
      bareMb = peakRssMb(floor.pid);
    } finally {
      await floor.close();
    }

    const agent = new AgentProcess([binary], env, cwd);
    try {
      await agent.ready();
      await Bun.sleep(50); // let the app's load settle
      const idleMb = peakRssMb(agent.pid);
      const { sessionId } = await agent.call("session/new", { cwd, mcpServers: [] });
      for (let turn = 1; turn <= TURNS; turn++) {
        if (turn % 5 === 0) llm.enqueue(reply().toolCall({ name: "read_file", args: { path: "notes.md" } }).usage({ prompt: 900, completion: 20 }));
        llm.enqueue(reply().text(`Turn ${turn}: ${"here is a short answer about the code. ".repeat(6)}`).usage({ prompt: 1000 + turn * 60, completion: 60 }));
        const r = await agent.call("session/prompt", { sessionId, prompt: [{ type: "text", text: `question ${turn}: what does this code do?` }] });
        if (r.stopReason !== "end_turn") throw new Error(`turn ${turn} ended with ${String(r.stopReason)}`);
      }
      const expected = TURNS + TURNS / 5;
      if (llm.requests.length !== expected) throw new Error(`expected ${expected} model calls, saw ${llm.requests.length}`);
      return { bareMb, idleMb, afterTurnsMb: peakRssMb(agent.pid), turns: TURNS };
    } finally {
      await agent.close();
    }
  } finally {
    await llm.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

export async function benchMemory(): Promise<BenchRow[]> {
  const r = await measureMemory();
  const growth = r.afterTurnsMb / r.idleMb;
  return [
    {
      name: "peak RSS idle (initialize answered, app loaded) vs bare Bun program",
      measured: mb(r.idleMb),
      baseline: mb(r.bareMb),
      ratio: r.idleMb / r.bareMb,
      target: `≤ ${IDLE_TARGET_MB} MB`,
      met: r.idleMb <= IDLE_TARGET_MB,
    },
    {
      name: `peak RSS after a ${r.turns}-turn session (${r.turns / 5} read_file calls) vs idle`,
      measured: mb(r.afterTurnsMb),
      baseline: `${mb(r.idleMb)} idle`,
      ratio: growth,
      target: `≤ ${GROWTH_TARGET}× idle`,
      met: growth <= GROWTH_TARGET,
    },
  ];
}

if (import.meta.main) {
  const { printTable } = await import("./table.ts");
  printTable(await benchMemory());
}
