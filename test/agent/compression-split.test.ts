import { describe, expect, test } from "bun:test";
import { fixToolPairs, MISSING_RESULT_STUB } from "../../src/agent/compression-pairs.ts";
import { hasMiddle, messageTokens, planSplit, pruneOldToolOutputs, shrinkToolArgs } from "../../src/agent/compression-split.ts";
import { renderTranscript } from "../../src/agent/compression-transcript.ts";
import type { ChatMessage } from "../../src/agent/messages.ts";
import { call, calls, filler, result, said, user } from "./compression-fixtures.ts";

const opts = { protectFirstN: 3, protectLastN: 3, tailBudget: 1000 };

describe("planSplit", () => {
  test("the head takes in the results of a tool call it ends on", () => {
    const h: ChatMessage[] = [user("go"), said("ok"), calls(null, call("a"), call("b")), result("a", "ra"), result("b", "rb")];
    for (let i = 0; i < 10; i++) h.push(said(filler(`m${i}`, 600)));
    const s = planSplit(h, opts);
    expect(s.headEnd).toBe(5);
    expect(hasMiddle(s)).toBe(true);
  });

  test("a tail that would start on a tool result moves back to its assistant", () => {
    const h: ChatMessage[] = [user("go"), said("ok"), user("more")];
    for (let i = 0; i < 6; i++) h.push(said(filler(`m${i}`, 600)));
    // The budget walk (soft ceiling 1,500) stops between the two results: 11 + 710, then 910 is too much.
    h.push(calls(null, call("a"), call("b")), result("a", filler("ra", 900)), result("b", filler("rb", 700)), said("end"));
    const s = planSplit(h, { ...opts, protectLastN: 4 });
    expect(s.pruned[s.tailStart]).toEqual(h[9]);
    expect(s.pruned[s.tailStart]!.role).toBe("assistant");
  });

  test("budgeted tail stays within 1.5× the budget and keeps at least 3 messages", () => {
    const h: ChatMessage[] = [user("go"), said("ok"), user("more")];
    for (let i = 0; i < 20; i++) h.push(i % 2 ? user(filler(`u${i}`, 300)) : said(filler(`a${i}`, 300)));
    const s = planSplit(h, opts);
    const tail = s.pruned.slice(s.tailStart);
    expect(tail.reduce((n, m) => n + messageTokens(m), 0)).toBeLessThanOrEqual(1500);
    expect(tail.length).toBe(4);

    const huge: ChatMessage[] = [user("go"), said("ok"), user("more"), said(filler("x", 50)), user(filler("big1", 5000)), said(filler("big2", 5000)), user(filler("big3", 5000))];
    expect(planSplit(huge, opts).tailStart).toBe(4); // the floor of 3 wins over the budget
  });

  test("pruned copies leave the input untouched", () => {
    const big = filler("OUT", 600);
    const h: ChatMessage[] = [user("go"), calls(null, call("a", "terminal", { command: "npm test", timeout: 60 })), result("a", big, "terminal")];
    for (let i = 0; i < 8; i++) h.push(said(filler(`m${i}`, 400)));
    const { messages, count } = pruneOldToolOutputs(h, 3, 500);
    expect(count).toBe(1);
    expect(messages[2]).toEqual({ role: "tool", content: `[Old tool output pruned: ${big.length} chars] (terminal command=npm test timeout=60)`, tool_call_id: "a", tool_name: "terminal" });
    expect(h[2]).toEqual(result("a", big, "terminal"));
    expect(messages[3]).toBe(h[3]!); // untouched messages are shared, not copied
  });

  test("old tool-call arguments shrink but stay valid JSON", () => {
    const args = JSON.stringify({ path: "a.ts", content: "y".repeat(5000), n: 3 });
    const out = shrinkToolArgs(args);
    expect(out.length).toBeLessThan(400);
    expect(JSON.parse(out)).toEqual({ path: "a.ts", content: expect.stringMatching(/^y{200}…\[truncated 4800 chars\]$/), n: 3 });
    expect(shrinkToolArgs(`not json ${"z".repeat(1000)}`)).toBe(`not json ${"z".repeat(1000)}`);
  });
});

describe("fixToolPairs", () => {
  const cases: { name: string; input: ChatMessage[]; expected: ChatMessage[] }[] = [
    { name: "orphan result dropped", input: [user("a"), result("x", "r"), said("b")], expected: [user("a"), said("b")] },
    {
      name: "missing result stubbed after the existing ones",
      input: [calls(null, call("a"), call("b")), result("a", "ra"), user("next")],
      expected: [calls(null, call("a"), call("b")), result("a", "ra"), result("b", MISSING_RESULT_STUB), user("next")],
    },
    {
      name: "a result separated from its call is dropped and stubbed",
      input: [calls(null, call("a")), user("interrupt"), result("a", "late")],
      expected: [calls(null, call("a")), result("a", MISSING_RESULT_STUB), user("interrupt")],
    },
    { name: "duplicate result dropped", input: [calls(null, call("a")), result("a", "1"), result("a", "2")], expected: [calls(null, call("a")), result("a", "1")] },
    { name: "call at the very end stubbed", input: [user("q"), calls("t", call("z", "terminal"))], expected: [user("q"), calls("t", call("z", "terminal")), result("z", MISSING_RESULT_STUB, "terminal")] },
    { name: "valid sequence unchanged", input: [user("q"), calls(null, call("a")), result("a", "r"), said("done")], expected: [user("q"), calls(null, call("a")), result("a", "r"), said("done")] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const before = structuredClone(c.input);
      expect(fixToolPairs(c.input).messages).toEqual(c.expected);
      expect(c.input).toEqual(before);
    });
  }
});

describe("renderTranscript", () => {
  test("labels roles, shows tool calls, clips long outputs and masks secrets", () => {
    process.env.COMPRESSION_TEST_SECRET = "hunter2-very-secret";
    let text: string;
    try {
      text = renderTranscript(
        [user("use key hunter2-very-secret now"), calls("reading", call("a")), result("a", `${"h".repeat(5000)}MIDDLE${"t".repeat(5000)}`)],
        200_000,
      );
    } finally {
      delete process.env.COMPRESSION_TEST_SECRET;
    }
    expect(text).toContain("[1] USER:\nuse key *** now");
    expect(text).toContain('[2] ASSISTANT:\nreading\n→ tool call read_file({"path":"src/a.ts"}) [id a]');
    expect(text).toContain("[3] TOOL RESULT read_file [id a]:");
    expect(text).not.toContain("MIDDLE");
    expect(text).toMatch(/chars omitted/);
  });

  test("the whole transcript is capped by the model window", () => {
    const many = Array.from({ length: 100 }, (_, i) => said(`${i} ${"w".repeat(3000)}`));
    expect(renderTranscript(many, 200_000).length).toBeLessThan(161_000);
    expect(renderTranscript(many, 16_000).length).toBeLessThan(33_000);
  });
});
