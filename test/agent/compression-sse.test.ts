// The engine against the real OpenAI-compatible client and the loopback fake SSE server.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { compressHistory, SUMMARY_PREFIX, type CompressionSettings } from "../../src/agent/compression.ts";
import type { ChatMessage } from "../../src/agent/messages.ts";
import { createOpenAiChatClient } from "../../src/llm/openai-chat.ts";
import { reply, startFakeLlm, type FakeLlmServer } from "../helpers/fake-llm-server.ts";
import { assertProviderValid, call, calls, filler, result, said, user } from "./compression-fixtures.ts";

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlm();
});
afterAll(async () => {
  await server.stop();
});

const settings: CompressionSettings = { threshold: 0.5, targetRatio: 0.1, protectFirstN: 3, protectLastN: 20, contextLength: 100_000 };
const client = () => createOpenAiChatClient({ baseUrl: server.url, apiKey: "sk-test", retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 } });

function history(): ChatMessage[] {
  const h: ChatMessage[] = [user("HEAD-ASK fix the flaky test"), said("HEAD-REPLY on it"), user("HEAD-MORE it is in net.test.ts")];
  for (let i = 0; i < 16; i++) {
    h.push(calls(`MIDDLE-STEP-${i}`, call(`m${i}`)), result(`m${i}`, filler(`MIDDLE-OUT-${i}`, 1200)));
  }
  h.push(user("TAIL-ASK now run it"), calls(null, call("t1", "terminal", { command: "bun test" })), result("t1", "TAIL-OUT 3 pass", "terminal"), said("TAIL-DONE"));
  return h;
}

test("one streaming summary call carrying only the middle; result is head + summary + tail", async () => {
  server.enqueue(reply().text("## User requests and goal\n").text("Fix the flaky test.").usage({ prompt: 9000, completion: 20 }));
  const before = server.requests.length;
  const chunks: string[] = [];
  const h = history();
  const r = await compressHistory({ history: h, llm: client(), model: "fake-model", settings, signal: new AbortController().signal, onSummaryChunk: (t) => chunks.push(t) });
  if (!r.ok) throw new Error(r.error);

  expect(server.requests.length - before).toBe(1);
  const req = server.requests.at(-1)!;
  expect(req.tools).toBeUndefined();
  expect(req.model).toBe("fake-model");
  const sent = JSON.stringify(req.messages);
  expect(sent).toContain("MIDDLE-STEP-0");
  expect(sent).toContain("MIDDLE-OUT-0");
  expect(sent).not.toContain("HEAD-");
  expect(sent).not.toContain("TAIL-");

  expect(chunks.join("")).toBe("## User requests and goal\nFix the flaky test.");
  expect(r.messages.slice(0, 3)).toEqual(h.slice(0, 3));
  const summary = r.messages[3]!;
  expect(summary.role === "user" && typeof summary.content === "string" && summary.content.startsWith(SUMMARY_PREFIX)).toBe(true);
  expect(r.messages.slice(-4)).toEqual(h.slice(-4));
  assertProviderValid(r.messages);
  expect(r.after.tokens).toBeLessThan(r.before.tokens);
});

test("a provider error leaves the conversation as it was", async () => {
  server.enqueue(reply().status(400, { message: "model not available" }));
  const h = history();
  const snapshot = structuredClone(h);
  const r = await compressHistory({ history: h, llm: client(), model: "fake-model", settings, signal: new AbortController().signal });
  expect(r.ok).toBe(false);
  if (!r.ok) expect(r.error).toContain("model not available");
  expect(h).toEqual(snapshot);
});
