import { describe, expect, test } from "bun:test";
import { collectIfGrown, collectorOnGrowth } from "../../src/util/memory.ts";

describe("collectorOnGrowth", () => {
  test("collects once resident memory grew by the threshold since the last collection, then measures again", () => {
    let rss = 50;
    const collected: number[] = [];
    const check = collectorOnGrowth({ growthMb: 8, rssMb: () => rss, collect: () => collected.push((rss -= 5)) });
    check(); // first call: the baseline (50)
    rss = 57;
    check();
    expect(collected).toEqual([]);
    rss = 58;
    check(); // grew by 8: collect, the new baseline is what is left (53)
    expect(collected).toEqual([53]);
    rss = 60;
    check();
    expect(collected).toEqual([53]);
    rss = 40; // memory went back down: the baseline follows
    check();
    rss = 47;
    check();
    expect(collected).toEqual([53]);
    rss = 48;
    check();
    expect(collected).toEqual([53, 43]);
  });

  test("the real one runs in this process without throwing", () => {
    expect(() => {
      collectIfGrown();
      collectIfGrown();
    }).not.toThrow();
  });
});
