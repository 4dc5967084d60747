// `bun run bench`: every benchmark under bench/, one after another (never in parallel: they would skew each
// other), one Markdown table on stdout, also written to bench/RESULTS.md. Progress goes to stderr.
// A benchmark that throws becomes a failed row; the rest still run. CI does not run this.
import { writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { ensureBinary } from "./agent-process.ts";
import { benchMemory } from "./memory.bench.ts";
import { benchPatchRows } from "./patch.bench.ts";
import { benchPersistence } from "./persistence.bench.ts";
import { benchPipeline } from "./pipeline.bench.ts";
import { benchReplay } from "./replay.bench.ts";
import { benchSearchRows } from "./search.bench.ts";
import { benchStartup } from "./startup.bench.ts";
import { benchStreamingRows } from "./streaming.bench.ts";
import { formatTable } from "./table.ts";
import type { BenchRow } from "./types.ts";

const benches: [string, () => Promise<BenchRow[]>][] = [
  ["startup", () => benchStartup(15)],
  ["memory", benchMemory],
  ["pipeline streaming", benchPipeline],
  ["LLM client streaming", benchStreamingRows],
  ["session/load replay", () => benchReplay()],
  ["persistence", () => benchPersistence()],
  ["patch", benchPatchRows],
  ["search", benchSearchRows],
];

const started = performance.now();
const rows: BenchRow[] = [];
try {
  await ensureBinary(); // once, before anything is timed
} catch (e) {
  rows.push({ name: "build dist/hermes-acp (failed)", measured: `error: ${e instanceof Error ? e.message : String(e)}`, target: "–", met: false });
}
for (const [name, run] of benches) {
  const t0 = performance.now();
  process.stderr.write(`bench: ${name} …`);
  try {
    rows.push(...(await run()));
    process.stderr.write(` ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  } catch (e) {
    const message = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, " ").replaceAll("|", "\\|").slice(0, 300);
    process.stderr.write(` FAILED: ${message}\n`);
    rows.push({ name: `${name} (failed)`, measured: `error: ${message}`, target: "–", met: false });
  }
}

const table = formatTable(rows);
const seconds = ((performance.now() - started) / 1000).toFixed(0);
const missed = rows.filter((r) => r.met === false).length;
const load = loadavg().map((l) => l.toFixed(2)).join(" ");
const machine = `${availableParallelism()} CPUs (nproc, load average ${load}), ${cpus()[0]?.model.trim() ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${process.platform}-${process.arch}, Bun ${Bun.version}`;
const header = [
  "# Benchmark results",
  "",
  `${new Date().toISOString()} — ${machine}; \`bun run bench\` took ${seconds} s.`,
  "",
  "Ratios compare contenders measured side by side in the same run (interleaved where possible); absolute times",
  "are context only: these machines are noisy. Streaming, replay and memory rows drive the compiled dist/hermes-acp.",
  "",
].join("\n");
console.log(table);
console.log(`\n${rows.length} rows, ${missed} target(s) missed; ${machine}; ${seconds} s`);
writeFileSync(join(import.meta.dir, "RESULTS.md"), `${header}${table}\n\n${missed} of ${rows.length} targets missed.\n`);
