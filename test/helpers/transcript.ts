// Recorded JSON-RPC cases: what the client sends and what the agent must answer, replayed through the
// real server. Volatile values (session ids, temp paths, times, uuids, the version) are normalised first.
// `UPDATE_TRANSCRIPTS=1 bun test test/transcripts` rewrites the expected frames from a run.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeProviderConfig, INIT, startHarness, tempDir, type Harness } from "./harness.ts";
import { reply, type FakeLlmServer, type ReplyBuilder } from "./fake-llm-server.ts";
import { mergeChunks, type Json } from "./rpc-peer.ts";
import { VERSION } from "../../src/version.ts";

export type ReplyStep =
  | { text: string }
  | { reasoning: string }
  | { toolCall: { id: string; name: string; args: unknown } }
  | { usage: { prompt: number; completion: number } }
  | { finish: string }
  | { status: number };

export type Step =
  | { send: Json }
  | { notify: Json }
  /** Answer the agent's next request of this method with this result. */
  | { answer: { method: string; result: unknown } }
  | { llm: ReplyStep[][] }
  | { write: { path: string; content: string } }
  | { restart: true };

export type Transcript = {
  description: string;
  config: "fake-provider" | "none";
  env?: Record<string, string>;
  clientCapabilities?: Json;
  steps: Step[];
  /** The agent's frames, normalised, in order. */
  expected?: unknown[];
};

function build(steps: ReplyStep[]): ReplyBuilder {
  const r = reply();
  for (const s of steps) {
    if ("text" in s) r.text(s.text);
    else if ("reasoning" in s) r.reasoning(s.reasoning);
    else if ("toolCall" in s) r.toolCall(s.toolCall);
    else if ("usage" in s) r.usage(s.usage);
    else if ("finish" in s) r.finish(s.finish);
    else if ("status" in s) r.status(s.status);
  }
  return r;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;

export function normalizer(cwd: string, home: string, llmUrl: string) {
  const ids = new Map<string, string>();
  const uuid = (u: string) => {
    if (!ids.has(u)) ids.set(u, `<uuid-${ids.size + 1}>`);
    return ids.get(u)!;
  };
  const str = (s: string) =>
    s
      .split(cwd).join("<cwd>")
      .split(home).join("<home>")
      .split(llmUrl).join("<llm>")
      .replace(UUID, uuid)
      .replace(ISO, "<time>")
      .replace(/\b\d{8}_\d{6}_[0-9a-f]{6}\b/g, "<hermes-id>")
      .split(`v${VERSION}`).join("v<version>");
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return str(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, val] of Object.entries(v)) out[k] = k === "version" && val === VERSION ? "<version>" : walk(val);
      return out;
    }
    return v;
  };
  return walk;
}

/** Runs the steps; returns the agent's frames, normalised. */
export async function runTranscript(t: Transcript, llm: FakeLlmServer): Promise<unknown[]> {
  const cwd = tempDir("hermes-transcript-");
  let home = join(tempDir(), "hermes");
  const config = t.config === "fake-provider" ? fakeProviderConfig(llm.url) : "";
  const open = async (h?: string) => startHarness({ config, ...(h ? { home: h } : {}), ...(t.env ? { env: t.env } : {}) });
  let h: Harness = await open();
  home = h.home;
  const frames: unknown[] = [];
  const answers = new Map<string, unknown[]>();
  const wire = (x: Harness) => {
    for (const method of ["session/request_permission", "fs/read_text_file", "fs/write_text_file"]) {
      x.peer.onRequest(method, () => {
        const queue = answers.get(method) ?? [];
        if (!queue.length) throw new Error(`unexpected ${method}`);
        return queue.shift();
      });
    }
  };
  wire(h);
  let seenRequests = llm.requests.length;
  const flush = async () => {
    await Bun.sleep(30);
    frames.push(...h.peer.received.splice(0));
    // What reached the model matters too (e.g. the model name after a switch).
    for (const r of llm.requests.slice(seenRequests).filter((x) => x.path.endsWith("/chat/completions"))) frames.push({ llmRequest: { model: r.model, messages: r.messages.length } });
    seenRequests = llm.requests.length;
  };
  const fill = (v: unknown): unknown => JSON.parse(JSON.stringify(v).split("<cwd>").join(cwd));
  let lastSession = "";
  for (const step of t.steps) {
    if ("llm" in step) for (const r of step.llm) llm.enqueue(build(r));
    else if ("write" in step) writeFileSync(join(cwd, step.write.path), step.write.content);
    else if ("answer" in step) answers.set(step.answer.method, [...(answers.get(step.answer.method) ?? []), step.answer.result]);
    else if ("restart" in step) {
      await flush();
      await h.close();
      h = await open(home);
      wire(h);
    } else if ("notify" in step) {
      h.peer.notify(String(step.notify.method), fill(step.notify.params));
    } else {
      const raw = JSON.stringify(fill(step.send.params ?? {})).split("<session>").join(lastSession);
      const r = await h.peer.request(String(step.send.method), JSON.parse(raw));
      const sid = (r.result as Json | undefined)?.sessionId;
      if (typeof sid === "string") lastSession = sid;
      await flush();
    }
  }
  await flush();
  await h.close();
  return mergeChunkFrames(frames).map(normalizer(cwd, home, llm.url));
}

/** Consecutive text chunks of one message are one frame: how they were split on the wire is not behaviour. */
function mergeChunkFrames(frames: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const f of frames) {
    const prev = out.at(-1) as Json | undefined;
    const update = ((f as Json).params as Json | undefined)?.update as Json | undefined;
    const prevUpdate = (prev?.params as Json | undefined)?.update as Json | undefined;
    if (update && prevUpdate && (f as Json).method === "session/update" && prev?.method === "session/update") {
      const merged = mergeChunks([prevUpdate, update]);
      if (merged.length === 1) {
        out[out.length - 1] = { ...prev, params: { ...(prev.params as Json), update: merged[0] } };
        continue;
      }
    }
    out.push(f);
  }
  return out;
}

export function loadTranscript(path: string): Transcript {
  return JSON.parse(readFileSync(path, "utf8")) as Transcript;
}

export function saveTranscript(path: string, t: Transcript): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, `${JSON.stringify(t, null, 2)}\n`);
}

export { INIT };
