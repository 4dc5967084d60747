// Persistence cost: appending one message at turn 10 vs turn 1,000 of one session (target ratio ≤ 1.5),
// and loading a 2,000-message transcript. Run alone: bun bench/persistence.bench.ts
//
// Each run grows one session message by message in a fresh state.db (as a live turn loop does),
// timing the appends around turn 10 and around turn 1,000; medians are taken over all runs.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatMessage } from "../src/agent/messages.ts";
import { SessionStore } from "../src/session/store.ts";
import { median, ms, type BenchRow } from "./types.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const WINDOW = 5; // appends timed on each side of the target turn
const EARLY = 10;
const LATE = 1000;

const message = (i: number): ChatMessage =>
  i % 2 === 0
    ? { role: "user", content: `question ${i}: ${"lorem ipsum ".repeat(40)}` }
    : { role: "assistant", content: `answer ${i}: ${"dolor sit amet ".repeat(80)}` };

export type PersistenceResult = { at10Ms: number; at1000Ms: number; samples: number; loadMs: number };

export function measurePersistence(runs = RUNS): PersistenceResult {
  const early: number[] = [];
  const late: number[] = [];
  let loadMs = 0;
  const dir = mkdtempSync(join(tmpdir(), "hermes-bench-"));
  try {
    for (let run = 0; run < runs; run++) {
      const store = SessionStore.open(join(dir, `run-${run}.db`));
      store.createSession({ id: "s", source: "acp" });
      for (let turn = 0; turn <= LATE + WINDOW; turn++) {
        const t0 = Bun.nanoseconds();
        store.appendMessages("s", [message(turn)]);
        const elapsed = (Bun.nanoseconds() - t0) / 1e6;
        if (run === 0) continue; // warm-up run: statement cache, page cache, JIT
        if (Math.abs(turn - EARLY) <= WINDOW) early.push(elapsed);
        if (Math.abs(turn - LATE) <= WINDOW) late.push(elapsed);
      }
      if (run === runs - 1) {
        store.appendMessages("s", Array.from({ length: 2000 - (LATE + WINDOW + 1) }, (_, i) => message(i)));
        const loads: number[] = [];
        for (let i = 0; i < 30; i++) {
          const t0 = Bun.nanoseconds();
          const n = store.loadMessages("s").length;
          loads.push((Bun.nanoseconds() - t0) / 1e6);
          if (n !== 2000) throw new Error(`expected 2000 messages, loaded ${n}`);
        }
        loadMs = median(loads);
      }
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { at10Ms: median(early), at1000Ms: median(late), samples: early.length, loadMs };
}

export async function benchPersistence(runs = RUNS): Promise<BenchRow[]> {
  const r = measurePersistence(runs);
  const ratio = r.at1000Ms / r.at10Ms;
  return [
    {
      name: `persist one message: turn ${LATE.toLocaleString("en")} vs turn ${EARLY} of one session (median of ${r.samples})`,
      measured: `${r.at1000Ms.toFixed(3)} ms`,
      baseline: `${r.at10Ms.toFixed(3)} ms`,
      ratio,
      target: "≤ 1.5×",
      met: ratio <= 1.5,
    },
    { name: "loadMessages of a 2,000-message session (median of 30)", measured: ms(r.loadMs), target: "< 50 ms", met: r.loadMs < 50 },
  ];
}

if (import.meta.main) {
  const { printTable } = await import("./table.ts");
  printTable(await benchPersistence());
}
