/** One line of the benchmark table: a figure, what it is compared with in the same run, and the target. */
export type BenchRow = {
  name: string;
  measured: string;
  baseline?: string;
  ratio?: number;
  target: string;
  /** null: context only (no target of the issue rides on it). */
  met: boolean | null;
};

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export const ms = (v: number) => `${v.toFixed(1)} ms`;
