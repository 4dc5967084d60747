import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOpenAiChatClient } from "../../src/llm/openai-chat.ts";
import { resetRecordReplay, wrapForRecordReplay } from "../../src/llm/record-replay.ts";
import { LlmError, type LlmChunk, type LlmClient, type LlmRequest } from "../../src/llm/types.ts";
import { reply, startFakeLlm, type FakeLlmServer } from "../helpers/fake-llm-server.ts";

let server: FakeLlmServer;
beforeAll(async () => {
  server = await startFakeLlm();
});
afterAll(async () => {
  await server.stop();
});
afterEach(() => resetRecordReplay());

const request: LlmRequest = { model: "fake-model", messages: [{ role: "user", content: "hi" }], tools: [{ name: "read_file", description: "r", parameters: {} }] };

type Outcome = { chunks: LlmChunk[]; error?: { kind: string; message: string } };
async function run(client: LlmClient, signal = new AbortController().signal): Promise<Outcome> {
  const chunks: LlmChunk[] = [];
  try {
    for await (const chunk of client.stream(request, signal)) chunks.push(chunk);
    return { chunks };
  } catch (err) {
    if (err instanceof LlmError) return { chunks, error: { kind: err.kind, message: err.message } };
    throw err;
  }
}

test("record then replay yields identical chunks and errors, in order, across clients", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "llm-rec-")), "turns.json");
  server.enqueue(
    reply().reasoning("hmm").text("Hello ").text("world").usage({ prompt: 3, completion: 2 }),
    reply().toolCall({ id: "call_1", name: "read_file", args: { path: "a.txt" } }),
    reply().status(400, { message: "bad things" }),
  );
  const real = createOpenAiChatClient({ baseUrl: server.url, apiKey: "k", retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
  const recording = wrapForRecordReplay(real, { HERMES_ACP_LLM_RECORD: path });
  const recorded = [await run(recording), await run(recording), await run(wrapForRecordReplay(real, { HERMES_ACP_LLM_RECORD: path }))];
  expect(recorded[2]?.error?.kind).toBe("bad_request");
  expect(JSON.parse(readFileSync(path, "utf8")).calls).toHaveLength(3);

  resetRecordReplay();
  const before = server.requests.length;
  const env = { HERMES_ACP_LLM_REPLAY: path };
  const first = wrapForRecordReplay(real, env);
  const replayed = [await run(first), await run(wrapForRecordReplay(real, env)), await run(first)];
  expect(replayed).toEqual(recorded);
  expect(server.requests.length).toBe(before);
  const exhausted = await run(first);
  expect(exhausted.error?.kind).toBe("bad_request");
  expect(exhausted.error?.message).toContain("no more responses");
});

test("a recorded cancellation replays its chunks, then waits for the caller's abort", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "llm-rec-")), "cancel.json");
  writeFileSync(
    path,
    JSON.stringify({ version: 1, calls: [{ request: { model: "m", messages: [], tools: [] }, chunks: [{ type: "text", text: "partial" }], aborted: true }] }),
  );
  const ac = new AbortController();
  const seen: LlmChunk[] = [];
  let caught: unknown;
  try {
    for await (const chunk of wrapForRecordReplay(createOpenAiChatClient({ baseUrl: server.url, apiKey: null }), { HERMES_ACP_LLM_REPLAY: path }).stream(request, ac.signal)) {
      seen.push(chunk);
      setTimeout(() => ac.abort(), 5);
    }
  } catch (err) {
    caught = err;
  }
  expect(seen).toEqual([{ type: "text", text: "partial" }]);
  expect(caught instanceof Error && caught.name).toBe("AbortError");
});

test("an invalid replay file is a clear error; no env leaves the client untouched", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "llm-rec-")), "bad.json");
  writeFileSync(path, JSON.stringify({ version: 2, calls: [] }));
  const outcome = await run(wrapForRecordReplay(createOpenAiChatClient({ baseUrl: server.url, apiKey: null }), { HERMES_ACP_LLM_REPLAY: path }));
  expect(outcome.error?.message).toContain("is invalid");
  const client = createOpenAiChatClient({ baseUrl: server.url, apiKey: null });
  expect(wrapForRecordReplay(client, {})).toBe(client);
});
