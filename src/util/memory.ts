// JavaScriptCore leaves a turn's garbage for later: over 50 quick turns the agent's RSS climbed from 55 to
// 110 MB, though a full collection brings it back to ~85 MB. One full collection whenever resident memory has
// grown by 8 MB keeps the peak down (50 turns: 96 MB); it runs after a response has gone out, so nobody waits.

type Probe = { growthMb: number; rssMb: () => number; collect: () => void };

/** A function that collects garbage when resident memory grew by `growthMb` since the last collection (or first call). */
export function collectorOnGrowth({ growthMb, rssMb, collect }: Probe): () => void {
  let baseline: number | undefined;
  return () => {
    const rss = rssMb();
    if (baseline === undefined || rss < baseline) {
      baseline = rss;
      return;
    }
    if (rss - baseline < growthMb) return;
    collect();
    baseline = rssMb();
  };
}

export const collectIfGrown = collectorOnGrowth({
  growthMb: 8,
  rssMb: () => process.memoryUsage.rss() / 1_048_576,
  collect: () => Bun.gc(true),
});
