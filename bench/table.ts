import type { BenchRow } from "./types.ts";

/** Rows as a Markdown table. */
export function formatTable(rows: BenchRow[]): string {
  const lines = [
    "| benchmark | measured | baseline (same run) | ratio | target | met |",
    "|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.name} | ${r.measured} | ${r.baseline ?? "–"} | ${r.ratio !== undefined ? `${r.ratio.toFixed(2)}×` : "–"} | ${r.target} | ${r.met === null ? "–" : r.met ? "yes" : "**no**"} |`),
  ];
  return lines.join("\n");
}

/** Prints rows as a Markdown table (to stdout: benchmarks are a CLI, not the ACP server). */
export function printTable(rows: BenchRow[]): void {
  console.log(formatTable(rows));
}
