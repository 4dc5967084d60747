// Built-in search vs ripgrep vs our rg path on a generated 20,000-file tree (generated once per call).
// Run alone: bun bench/search.bench.ts
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { searchFiles, type SearchArgs } from "../src/tools/search-files.ts";
import { findRg } from "../src/tools/search-rg.ts";
import { ms, type BenchRow } from "./types.ts";

const FILES = 20_000;
const PER_DIR = 100;
const RUNS = 7;

/** ~1.5 KB of code-like text per file; every 97th file holds a needle; one ignored dir. */
function generateTree(root: string): void {
  writeFileSync(join(root, ".gitignore"), "ignored/\n*.tmp\n");
  for (let d = 0; d < FILES / PER_DIR; d++) {
    const dir = join(root, `pkg${d % 20}`, `mod${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < PER_DIR; f++) {
      const n = d * PER_DIR + f;
      const lines: string[] = [];
      for (let l = 0; l < 40; l++) lines.push(`export function fn_${n}_${l}(value: number): number { return value * ${l} + ${n}; }`);
      if (n % 97 === 0) lines.splice(20, 0, `// needle_${n} marks this file`);
      writeFileSync(join(dir, `file${f}.ts`), `${lines.join("\n")}\n`);
    }
  }
  mkdirSync(join(root, "ignored"), { recursive: true });
  writeFileSync(join(root, "ignored", "x.ts"), "needle_ignored\n");
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function rgDirect(rg: string, root: string, pattern: string): Promise<void> {
  const argv = [rg, "--json", "--crlf", "--no-config", "--no-messages", "--no-ignore-dot", "--no-ignore-global", "--no-require-git"];
  argv.push("--max-filesize", "50M", "--case-sensitive", "--regexp", pattern, "--", ".");
  const proc = Bun.spawn(argv, { cwd: root, stdout: "pipe", stderr: "ignore" });
  await new Response(proc.stdout).arrayBuffer();
  await proc.exited;
}

export async function benchSearch(): Promise<{ builtinMs: number; rgMs: number | null; ourRgMs: number | null }> {
  const root = mkdtempSync(join(tmpdir(), "hermes-search-bench-"));
  try {
    const t0 = performance.now();
    generateTree(root);
    console.error(`generated ${FILES} files in ${(performance.now() - t0).toFixed(0)} ms`);
    const signal = new AbortController().signal;
    const args: SearchArgs = { pattern: "needle_\\d+", limit: 50 };
    const rg = findRg();
    const builtin: number[] = [];
    const direct: number[] = [];
    const ours: number[] = [];
    // Warm the page cache once for everyone, then interleave the contenders.
    const reference = await searchFiles(args, root, signal, { backend: "builtin" });
    if (rg) {
      await rgDirect(rg, root, args.pattern);
      const viaRg = await searchFiles(args, root, signal, { backend: "rg", rgPath: rg });
      console.error(`built-in and rg outputs identical: ${viaRg.output === reference.output ? "yes" : "NO"}`);
    }
    for (let i = 0; i < RUNS; i++) {
      builtin.push(await time(() => searchFiles(args, root, signal, { backend: "builtin" })));
      if (rg) {
        direct.push(await time(() => rgDirect(rg, root, args.pattern)));
        ours.push(await time(() => searchFiles(args, root, signal, { backend: "rg", rgPath: rg })));
      }
    }
    return { builtinMs: median(builtin), rgMs: rg ? median(direct) : null, ourRgMs: rg ? median(ours) : null };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The table rows: built-in vs rg (≤ 3×) and our rg path vs rg run directly (≤ 1.2×). */
export async function benchSearchRows(): Promise<BenchRow[]> {
  const r = await benchSearch();
  const what = `search_files over a generated tree of ${FILES.toLocaleString("en")} files (median of ${RUNS})`;
  if (r.rgMs === null || r.ourRgMs === null) {
    return [{ name: `${what}: built-in (rg not on PATH, no comparison)`, measured: ms(r.builtinMs), target: "≤ 3× rg", met: null }];
  }
  const builtin = r.builtinMs / r.rgMs;
  const ours = r.ourRgMs / r.rgMs;
  return [
    { name: `${what}: built-in vs rg`, measured: ms(r.builtinMs), baseline: `${ms(r.rgMs)} rg`, ratio: builtin, target: "≤ 3×", met: builtin <= 3 },
    { name: `${what}: our rg path vs rg`, measured: ms(r.ourRgMs), baseline: `${ms(r.rgMs)} rg`, ratio: ours, target: "≤ 1.2×", met: ours <= 1.2 },
  ];
}

if (import.meta.main) {
  const { printTable } = await import("./table.ts");
  printTable(await benchSearchRows());
}
