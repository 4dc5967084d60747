// Persistence cost: appending one message at turn 10 vs turn 1,000 of one session (target ratio ≤ 1.5),
// and loading a 2,000-message transcript. Run: bun bench/persistence.bench.ts
//
// Each run grows one session message by message in a fresh state.db (as a live turn loop does),
// timing the appends around turn 10 and around turn 1,000; medians are taken over all runs.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatMessage } from "../src/agent/messages.ts";
import { SessionStore } from "../src/session/store.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const WINDOW = 5; // appends timed on each side of the target turn
const EARLY = 10;
const LATE = 1000;

const message = (i: number): ChatMessage =>
  i % 2 === 0
    ? { role: "user", content: `question ${i}: ${"lorem ipsum ".repeat(40)}` }
    : { role: "assistant", content: `answer ${i}: ${"dolor sit amet ".repeat(80)}` };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const early: number[] = [];
const late: number[] = [];
let loadMs = 0;
const dir = mkdtempSync(join(tmpdir(), "hermes-bench-"));
try {
  for (let run = 0; run < RUNS; run++) {
    const store = SessionStore.open(join(dir, `run-${run}.db`));
    store.createSession({ id: "s", source: "acp" });
    for (let turn = 0; turn <= LATE + WINDOW; turn++) {
      const t0 = Bun.nanoseconds();
      store.appendMessages("s", [message(turn)]);
      const ms = (Bun.nanoseconds() - t0) / 1e6;
      if (run === 0) continue; // warm-up run: statement cache, page cache, JIT
      if (Math.abs(turn - EARLY) <= WINDOW) early.push(ms);
      if (Math.abs(turn - LATE) <= WINDOW) late.push(ms);
    }
    if (run === RUNS - 1) {
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

const at10 = median(early);
const at1000 = median(late);
const ratio = at1000 / at10;
console.log(`append at turn ${EARLY}:    ${at10.toFixed(3)} ms (median of ${early.length})`);
console.log(`append at turn ${LATE.toLocaleString("en")}: ${at1000.toFixed(3)} ms (median of ${late.length})`);
console.log(`ratio:                ${ratio.toFixed(2)} (target ≤ 1.5) ${ratio <= 1.5 ? "OK" : "OVER"}`);
console.log(`loadMessages 2,000:   ${loadMs.toFixed(2)} ms (median of 30; target well under 50 ms)`);
