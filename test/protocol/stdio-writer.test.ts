import { describe, expect, test } from "bun:test";
import { batchedStdout } from "../../src/protocol/stdio-writer.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("batchedStdout", () => {
  test("frames written in one turn go out as one write, in order", async () => {
    const writes: string[] = [];
    const out = batchedStdout((b) => writes.push(text(b)));
    out.write(new TextEncoder().encode("a\n"));
    out.write(new TextEncoder().encode("b\n"));
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(["a\nb\n"]);
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
