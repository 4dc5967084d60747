// Sanity, not a benchmark (see bench/persistence.bench.ts): append cost must not grow with the session.
import { afterAll, expect, test } from "bun:test";
import type { ChatMessage } from "../../src/agent/messages.ts";
import { SessionStore } from "../../src/session/store.ts";
import { cleanupTempDirs, freshDbPath } from "./helpers.ts";

afterAll(cleanupTempDirs);

const msg = (i: number): ChatMessage =>
  i % 2 === 0 ? { role: "user", content: `question ${i} ${"lorem ipsum ".repeat(20)}` } : { role: "assistant", content: `answer ${i} ${"dolor sit amet ".repeat(30)}` };

function medianAppendMs(store: SessionStore, id: string, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    store.appendMessages(id, [msg(i)]);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

test("appending message 1,000 is not markedly slower than message 10; 2,000 messages load fast", () => {
  const store = SessionStore.open(freshDbPath());
  store.createSession({ id: "short", source: "acp" });
  store.createSession({ id: "long", source: "acp" });
  store.appendMessages("short", Array.from({ length: 10 }, (_, i) => msg(i)));
  store.appendMessages("long", Array.from({ length: 1000 }, (_, i) => msg(i)));
  medianAppendMs(store, "short", 5); // warm-up
  const early = medianAppendMs(store, "short", 30);
  const late = medianAppendMs(store, "long", 30);
  expect(late / Math.max(early, 0.01)).toBeLessThan(5);

  const have = store.getSession("long")!.messageCount;
  store.appendMessages("long", Array.from({ length: 2000 - have }, (_, i) => msg(i)));
  const t0 = performance.now();
  const loaded = store.loadMessages("long");
  const loadMs = performance.now() - t0;
  expect(loaded).toHaveLength(2000);
  expect(loadMs).toBeLessThan(250); // typically a few ms; generous for a loaded 2-core CI box
  store.close();
});
