import { describe, expect, test } from "bun:test";
import {
  compressHistory,
  compressionSettings,
  isContextLengthError,
  shouldCompress,
  SUMMARY_PREFIX,
  tailTokenBudget,
  TODO_NOTE_HEADER,
  type CompressionSettings,
} from "../../src/agent/compression.ts";
import { MISSING_RESULT_STUB } from "../../src/agent/compression-pairs.ts";
import type { ChatMessage } from "../../src/agent/messages.ts";
import { textOf } from "../../src/agent/messages.ts";
import { isCompactionSummary } from "../../src/session/replay.ts";
import { defaultConfig } from "../../src/config/load.ts";
import { LlmError } from "../../src/llm/types.ts";
import { assertProviderValid, call, calls, fails, filler, mark, replies, result, said, ScriptedLlm, textOfMessage, user } from "./compression-fixtures.ts";

// 100k window → threshold 64k (floor); ratio 0.1 → tail budget 6,400 tokens (soft ceiling 9,600).
const settings = (over: Partial<CompressionSettings> = {}): CompressionSettings => ({
  threshold: 0.5,
  targetRatio: 0.1,
  protectFirstN: 3,
  protectLastN: 20,
  contextLength: 100_000,
  ...over,
});

const signal = () => new AbortController().signal;

/** Head of 3 small messages, then `n` ~2k-token exchanges, then a small final user/assistant pair. */
function longHistory(n = 20): ChatMessage[] {
  const h: ChatMessage[] = [user(`${mark(0)} please refactor the parser`), said(`${mark(1)} sure`), user(`${mark(2)} start with lexer.ts`)];
  for (let i = 0; i < n; i++) {
    const k = h.length;
    h.push(i % 2 === 0 ? said(filler(mark(k), 2000)) : user(filler(mark(k), 2000)));
  }
  h.push(user(`${mark(h.length)} now run the tests`), said(`${mark(h.length + 1)} all green`));
  return h;
}

function summariserInput(llm: ScriptedLlm): string {
  const req = llm.requests[0];
  if (!req) throw new Error("no summariser request");
  return req.messages.map((m) => textOf(m.role === "assistant" ? m.content : m.content)).join("\n");
}

describe("compressHistory", () => {
  test("summarises only the middle; result is head + summary + tail", async () => {
    const history = longHistory();
    const llm = replies("## User requests and goal\n", "Refactor the parser.");
    const r = await compressHistory({ history, llm, model: "m", settings: settings(), signal: signal() });
    if (!r.ok) throw new Error(r.error);

    expect(r.messages.slice(0, 3)).toEqual(history.slice(0, 3));
    const summary = r.messages[3]!;
    expect(summary.role).toBe("user");
    expect(textOf(summary.role === "user" ? summary.content : "").startsWith(`${SUMMARY_PREFIX} `)).toBe(true);
    expect(isCompactionSummary(summary)).toBe(true);
    expect(summary.role === "user" && summary._meta?.compactionSummary).toBe(true);
    expect(textOf(summary.role === "user" ? summary.content : "")).toContain("Refactor the parser.");
    expect(r.summary).toBe("## User requests and goal\nRefactor the parser.");

    const tail = r.messages.slice(4);
    expect(tail.length).toBeGreaterThanOrEqual(3);
    expect(tail).toEqual(history.slice(history.length - tail.length));

    // The summariser saw exactly the middle: every middle marker, no head or tail marker.
    const input = summariserInput(llm);
    const middleEnd = history.length - tail.length;
    for (let i = 0; i < history.length; i++) {
      expect({ i, seen: input.includes(mark(i)) }).toEqual({ i, seen: i >= 3 && i < middleEnd });
    }
    expect(llm.requests[0]!.tools).toEqual([]);
    expect(llm.requests[0]!.messages[0]!.role).toBe("system");

    expect(r.before).toEqual({ messages: history.length, tokens: expect.any(Number) });
    expect(r.after.messages).toBe(r.messages.length);
    expect(r.after.tokens).toBeLessThan(r.before.tokens / 2);
    // Tail budget respected (soft ceiling 1.5 × 6,400 plus per-message overhead).
    const tailChars = tail.reduce((n, m) => n + textOfMessage(m).length, 0);
    expect(tailChars / 4).toBeLessThanOrEqual(tailTokenBudget(settings()) * 1.5);
  });

  test("streams summary chunks to onSummaryChunk in order", async () => {
    const chunks: string[] = [];
    const r = await compressHistory({
      history: longHistory(),
      llm: replies("one ", "two ", "three"),
      model: "m",
      settings: settings(),
      signal: signal(),
      onSummaryChunk: (t) => chunks.push(t),
    });
    expect(r.ok).toBe(true);
    expect(chunks).toEqual(["one ", "two ", "three"]);
  });

  test("never splits an assistant tool call from its results and keeps the sequence valid", async () => {
    const history: ChatMessage[] = [user("fix the bug"), calls(null, call("h1")), result("h1", "short head result")];
    for (let i = 0; i < 30; i++) {
      const a = `c${i}a`;
      const b = `c${i}b`;
      history.push(calls(`step ${i}`, call(a), call(b, "search_files", { pattern: "foo" })));
      history.push(result(a, filler(`out ${i}a`, 300 + ((i * 137) % 900))), result(b, filler(`out ${i}b`, 200 + ((i * 71) % 700)), "search_files"));
    }
    history.push(said("done"));
    for (const targetRatio of [0.1, 0.13, 0.17, 0.2, 0.31]) {
      for (const protectFirstN of [0, 1, 2, 3, 4]) {
        const r = await compressHistory({ history, llm: replies("summary"), model: "m", settings: settings({ targetRatio, protectFirstN }), signal: signal() });
        if (!r.ok) throw new Error(r.error);
        assertProviderValid(r.messages);
        // No stub was needed: pairs were kept whole, not patched.
        expect(r.messages.some((m) => m.role === "tool" && m.content === MISSING_RESULT_STUB)).toBe(false);
        // The kept tail is an exact suffix of the history (by role and call id): nothing was dropped.
        let tail = r.messages.slice(r.messages.findIndex((m) => isCompactionSummary(m)) + 1);
        if (protectFirstN === 0) {
          // With no head the only user request sits in the middle: it is lifted, verbatim, after the summary.
          expect(tail[0]).toEqual(history[0]!);
          tail = tail.slice(1);
        }
        const shape = (m: ChatMessage) => `${m.role}:${m.role === "tool" ? m.tool_call_id : ""}`;
        expect(tail.map(shape)).toEqual(history.slice(history.length - tail.length).map(shape));
        expect(tail[0]?.role).not.toBe("tool");
      }
    }
  });

  test("fixes orphaned pairs already present in the kept messages", async () => {
    const history = longHistory();
    // A result whose call is gone and a call whose result is gone, both in the tail.
    history.push(result("ghost", "orphan output"), calls("checking", call("lost")), user("and?"), said("ok"));
    const r = await compressHistory({ history, llm: replies("s"), model: "m", settings: settings(), signal: signal() });
    if (!r.ok) throw new Error(r.error);
    assertProviderValid(r.messages);
    expect(r.messages.some((m) => m.role === "tool" && m.tool_call_id === "ghost")).toBe(false);
    const stub = r.messages.find((m) => m.role === "tool" && m.tool_call_id === "lost");
    expect(stub).toEqual({ role: "tool", content: MISSING_RESULT_STUB, tool_call_id: "lost", tool_name: "read_file" });
  });

  test("prunes old tool outputs outside the protected tail but not recent ones", async () => {
    const big = filler("BIG-HEAD-OUTPUT", 1500);
    const history: ChatMessage[] = [user("read it"), calls(null, call("h1", "read_file", { path: "src/big.ts" })), result("h1", big)];
    for (let i = 0; i < 30; i++) history.push(i % 2 ? user(filler(`mid ${i}`, 2500)) : said(filler(`mid ${i}`, 2500)));
    const recent = filler("RECENT-OUTPUT", 400);
    history.push(user("look again"), calls(null, call("t1")), result("t1", recent), said("seen"));
    const r = await compressHistory({ history, llm: replies("s"), model: "m", settings: settings(), signal: signal() });
    if (!r.ok) throw new Error(r.error);
    const headTool = r.messages[2]!;
    expect(headTool.role).toBe("tool");
    expect(textOf(headTool.role === "tool" ? headTool.content : "")).toBe(`[Old tool output pruned: ${big.length} chars] (read_file path=src/big.ts)`);
    expect(r.messages.some((m) => m.role === "tool" && m.content === recent)).toBe(true);
    expect(history[2]).toEqual(result("h1", big)); // input untouched
  });

  test("carries active todos over after the summary", async () => {
    const todos = [
      { id: "1", content: "write the lexer", status: "completed" },
      { id: "2", content: "write the parser", status: "in_progress" },
      { id: "3", content: "add tests", status: "pending" },
      { id: "4", content: "old idea", status: "cancelled" },
    ];
    const r = await compressHistory({ history: longHistory(), llm: replies("s"), model: "m", settings: settings(), signal: signal(), todos });
    if (!r.ok) throw new Error(r.error);
    expect(r.messages[4]).toEqual({
      role: "user",
      content: `${TODO_NOTE_HEADER}\n- [>] 2. write the parser (in_progress)\n- [ ] 3. add tests (pending)`,
    });

    const done = await compressHistory({
      history: longHistory(),
      llm: replies("s"),
      model: "m",
      settings: settings(),
      signal: signal(),
      todos: [{ id: "1", content: "x", status: "completed" }],
    });
    if (!done.ok) throw new Error(done.error);
    expect(done.messages.some((m) => m.role === "user" && textOf(m.content).startsWith(TODO_NOTE_HEADER))).toBe(false);
  });

  test("keeps the latest user request verbatim when it falls in the middle", async () => {
    const history: ChatMessage[] = [user("hello"), said("hi"), user("earlier ask"), said("done that"), user("LATEST: port the module")];
    for (let i = 0; i < 25; i++) history.push(calls(null, call(`x${i}`)), result(`x${i}`, filler(`o${i}`, 900)));
    history.push(said("still working"));
    const llmLast = replies("s");
    const r = await compressHistory({ history, llm: llmLast, model: "m", settings: settings(), signal: signal() });
    if (!r.ok) throw new Error(r.error);
    const latest = r.messages.findIndex((m) => m.role === "user" && m.content === "LATEST: port the module");
    expect(latest).toBe(4); // right after head (3) + summary
    expect(r.after.tokens).toBeLessThan(r.before.tokens / 2);
    expect(r.summary).toBe("s");
    expect(summariserInput(llmLast)).toContain("LATEST: port the module");
    assertProviderValid(r.messages);
  });

  test("failure leaves the history untouched and returns ok:false", async () => {
    const history = longHistory();
    const snapshot = structuredClone(history);
    const cases: [ScriptedLlm, RegExp][] = [
      [fails(new LlmError("server", "HTTP 500 from fake")), /summary model call failed: HTTP 500 from fake/],
      [fails(new Error("boom")), /boom/],
      [replies("   "), /empty summary/],
      [new ScriptedLlm(async function* () { yield { type: "text", text: "cut" }; }), /closed the stream/],
    ];
    for (const [llm, pattern] of cases) {
      const r = await compressHistory({ history, llm, model: "m", settings: settings(), signal: signal() });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatch(pattern);
    }
    expect(history).toEqual(snapshot);
  });

  test("cancellation mid-summary returns ok:false", async () => {
    const ac = new AbortController();
    const llm = new ScriptedLlm(async function* (_req, s) {
      yield { type: "text", text: "part" };
      ac.abort();
      if (s.aborted) throw new DOMException("aborted", "AbortError");
    });
    const r = await compressHistory({ history: longHistory(), llm, model: "m", settings: settings(), signal: ac.signal });
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/cancelled/) });
  });

  test("nothing to compress unless forced", async () => {
    const history: ChatMessage[] = [user("a"), said("b"), user("c"), said("d"), user("e"), said("f"), user("g"), said("h")];
    const llm = replies("short summary");
    const plain = await compressHistory({ history, llm, model: "m", settings: settings(), signal: signal() });
    expect(plain).toEqual({ ok: false, error: expect.stringMatching(/^Nothing to compress/) });
    expect(llm.requests).toHaveLength(0);

    const forced = await compressHistory({ history, llm, model: "m", settings: settings(), signal: signal(), force: true });
    if (!forced.ok) throw new Error(forced.error);
    expect(forced.messages.map((m) => textOfMessage(m).slice(0, 1))).toEqual(["a", "b", "c", "[", "f", "g", "h"]);

    const empty = await compressHistory({ history: [], llm, model: "m", settings: settings(), signal: signal(), force: true });
    expect(empty).toEqual({ ok: false, error: "Nothing to compress — conversation is empty." });
  });

  test("re-compressing folds the previous summary into the new one", async () => {
    const first = await compressHistory({ history: longHistory(), llm: replies("FIRST-SUMMARY"), model: "m", settings: settings(), signal: signal() });
    if (!first.ok) throw new Error(first.error);
    const grown = [...first.messages];
    for (let i = 0; i < 12; i++) grown.push(i % 2 ? user(filler(`more ${i}`, 2000)) : said(filler(`more ${i}`, 2000)));
    grown.push(user("next"), said("ok"));
    const llm = replies("SECOND-SUMMARY");
    const second = await compressHistory({ history: grown, llm, model: "m", settings: settings(), signal: signal() });
    if (!second.ok) throw new Error(second.error);
    expect(summariserInput(llm)).toContain("FIRST-SUMMARY");
    expect(second.messages.filter((m) => isCompactionSummary(m))).toHaveLength(1);
  });
});

describe("settings and thresholds", () => {
  test("defaults from config and clamps", () => {
    const config = defaultConfig();
    expect(compressionSettings(config, 200_000)).toEqual({ threshold: 0.5, targetRatio: 0.2, protectFirstN: 3, protectLastN: 20, contextLength: 200_000 });
    expect(compressionSettings({ ...config, compression: { ...config.compression, target_ratio: 0.95 } }, 1).targetRatio).toBe(0.8);
    expect(compressionSettings({ ...config, compression: { ...config.compression, target_ratio: 0.01 } }, 1).targetRatio).toBe(0.1);
    expect(compressionSettings(config, 200_000, 8192).maxTokens).toBe(8192);
  });

  test("shouldCompress uses the threshold, the 64k floor and the window clamp", () => {
    const s = (contextLength: number, maxTokens?: number) => settings({ contextLength, targetRatio: 0.2, ...(maxTokens ? { maxTokens } : {}) });
    expect(shouldCompress(99_999, s(200_000))).toBe(false);
    expect(shouldCompress(100_000, s(200_000))).toBe(true);
    expect(shouldCompress(89_999, s(200_000, 20_000))).toBe(false); // (200k − 20k) × 0.5
    expect(shouldCompress(90_000, s(200_000, 20_000))).toBe(true);
    expect(shouldCompress(63_999, s(100_000))).toBe(false); // 50k raised to the 64k floor
    expect(shouldCompress(64_000, s(100_000))).toBe(true);
    expect(shouldCompress(27_199, s(32_000))).toBe(false); // floor above the window → 85 %
    expect(shouldCompress(27_200, s(32_000))).toBe(true);
    expect(tailTokenBudget(s(200_000))).toBe(20_000);
  });

  test("isContextLengthError", () => {
    expect(isContextLengthError(new LlmError("context_length", "too long"))).toBe(true);
    expect(isContextLengthError(new LlmError("server", "x"))).toBe(false);
    expect(isContextLengthError(new Error("context_length"))).toBe(false);
  });
});
