import { describe, expect, test } from "bun:test";
import { batchedStdout } from "../../src/protocol/stdio-writer.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("batchedStdout", () => {
  test("a frame after a quiet spell goes out at once; the rest of that turn go out as one write, in order", async () => {
    const writes: string[] = [];
    const out = batchedStdout((b) => writes.push(text(b)));
    out.write(new TextEncoder().encode("a\n"));
    expect(writes).toEqual(["a\n"]);
    out.write(new TextEncoder().encode("b\n"));
    out.write(new TextEncoder().encode("c\n"));
    expect(writes).toEqual(["a\n"]);
    await nextTurn();
    expect(writes).toEqual(["a\n", "b\nc\n"]);
    // Quiet again: the next frame is not held.
    out.write(new TextEncoder().encode("d\n"));
    expect(writes).toEqual(["a\n", "b\nc\n", "d\n"]);
  });

  test("a frame written during a long chain of microtasks is not held behind it", async () => {
    const writes: string[] = [];
    const out = batchedStdout((b) => writes.push(text(b)));
    let seenAt = -1;
    // Like parsing an already-buffered stream: thousands of awaits, no turn of the event loop.
    for (let i = 0; i < 1000; i++) {
      if (i === 1) out.write(new TextEncoder().encode("first chunk"));
      if (i === 2) seenAt = writes.length;
      await Promise.resolve();
    }
    expect(seenAt).toBe(1);
  });

  test("a batch is held at most a few milliseconds, even by a turn that never ends", () => {
    const writes: string[] = [];
    const out = batchedStdout((b) => writes.push(text(b)));
    out.write(new TextEncoder().encode("a"));
    out.write(new TextEncoder().encode("b"));
    const start = performance.now();
    while (performance.now() - start < 12) {
      // busy: the event loop cannot turn
    }
    out.write(new TextEncoder().encode("c"));
    expect(writes).toEqual(["a", "bc"]);
  });

  test("afterFlush runs once what was written before it is out, and what it writes follows", async () => {
    const events: string[] = [];
    const out = batchedStdout((b) => events.push(`write ${text(b).trim()}`));
    // Scheduled before the response is written (as the session/new handler does), run after it went out.
    out.afterFlush(() => {
      events.push("after");
      out.write(new TextEncoder().encode("commands"));
    });
    out.write(new TextEncoder().encode("response"));
    await nextTurn();
    expect(events).toEqual(["write response", "after", "write commands"]);
  });

  test("afterFlush with nothing pending still runs, and flush() writes at once", async () => {
    const events: string[] = [];
    const out = batchedStdout((b) => events.push(text(b)));
    out.afterFlush(() => events.push("after"));
    await nextTurn();
    expect(events).toEqual(["after"]);
    out.write(new TextEncoder().encode("x"));
    out.flush();
    expect(events).toEqual(["after", "x"]);
  });
});
