// A seeded PRNG for the reliability tests: every random choice comes from here, so a failing run
// reproduces with RELIABILITY_SEED=<printed seed>.

export type Rng = {
  readonly seed: number;
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max] inclusive. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
};

/** mulberry32: tiny, fast, and good enough to drive test choices. */
export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed: seed >>> 0,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick<T>(items: readonly T[]): T {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error("pick from an empty list");
      return item;
    },
    chance: (p) => next() < p,
  };
}

/** The seed from RELIABILITY_SEED (or a fresh one), printed on stderr with the test's name. */
export function seededRng(label: string): Rng {
  const fromEnv = Number(process.env.RELIABILITY_SEED);
  const seed = Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : Math.floor(Math.random() * 2 ** 31) + 1;
  process.stderr.write(`[reliability] ${label}: seed ${seed} (rerun with RELIABILITY_SEED=${seed})\n`);
  return createRng(seed);
}
