// A loopback fake LLM provider speaking real SSE: OpenAI chat completions (/v1/chat/completions, /v1/models)
// and Anthropic messages (/v1/messages). Scripted with `reply()` builders; records every request.
// Standalone: `bun test/helpers/fake-llm-server.ts` prints its URL to stderr.
import { z } from "zod";

type Step =
  | { kind: "text"; text: string }
  | { kind: "reasoning"; text: string; field: "reasoning_content" | "reasoning" }
  | { kind: "tool"; id: string | null; name: string; args: string; pieces: number; oneChunk: boolean; omitIndex: boolean }
  | { kind: "raw"; frame: string };

export type FakeUsage = { prompt: number; completion: number; reasoning?: number; cached?: number; cost?: number };

export class ReplyBuilder {
  readonly steps: Step[] = [];
  statusCode: number | null = null;
  statusMessage = "";
  retryAfter: number | null = null;
  finishReason: string | null = null;
  usageValue: FakeUsage | null = null;
  disconnectAt: number | null = null;
  hangAtEnd = false;
  delayMs = 0;

  text(text: string): this {
    this.steps.push({ kind: "text", text });
    return this;
  }
  /** Reasoning delta; `field` picks the provider dialect (DeepSeek `reasoning_content`, OpenRouter `reasoning`). */
  reasoning(text: string, field: "reasoning_content" | "reasoning" = "reasoning_content"): this {
    this.steps.push({ kind: "reasoning", text, field });
    return this;
  }
  /** Streams id+name first, then the arguments in `pieces` parts (or all in one chunk). */
  toolCall(call: { id?: string | null; name: string; args: unknown; pieces?: number; oneChunk?: boolean; omitIndex?: boolean }): this {
    const args = typeof call.args === "string" ? call.args : JSON.stringify(call.args);
    this.steps.push({
      kind: "tool",
      id: call.id === undefined ? `call_${this.steps.length}` : call.id,
      name: call.name,
      args,
      pieces: call.pieces ?? 3,
      oneChunk: call.oneChunk ?? false,
      omitIndex: call.omitIndex ?? false,
    });
    return this;
  }
  usage(usage: FakeUsage): this {
    this.usageValue = usage;
    return this;
  }
  finish(reason: string): this {
    this.finishReason = reason;
    return this;
  }
  /** An HTTP error instead of a stream. The message may echo anything (tests put the key in it). */
  status(code: number, opts: { retryAfter?: number; message?: string } = {}): this {
    this.statusCode = code;
    this.retryAfter = opts.retryAfter ?? null;
    this.statusMessage = opts.message ?? `fake error ${code}`;
    return this;
  }
  /** Drop the connection (ECONNRESET) after `n` SSE frames. */
  disconnectAfter(n: number): this {
    this.disconnectAt = n;
    return this;
  }
  /** After the scripted steps, keep the connection open without finishing until the client leaves. */
  hang(): this {
    this.hangAtEnd = true;
    return this;
  }
  /** An SSE frame whose data is not JSON. */
  malformed(): this {
    this.steps.push({ kind: "raw", frame: "data: {not json\n\n" });
    return this;
  }
  /** `n` tiny text chunks (benchmarks). */
  chunks(n: number, text = "x"): this {
    for (let i = 0; i < n; i++) this.steps.push({ kind: "text", text });
    return this;
  }
  /** Pause between frames. */
  delay(ms: number): this {
    this.delayMs = ms;
    return this;
  }
}

export function reply(): ReplyBuilder {
  return new ReplyBuilder();
}

export type RecordedRequest = {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  model: string | undefined;
  messages: unknown[];
  tools: unknown[] | undefined;
};

export type FakeLlmServer = {
  /** Base URL ending in /v1. */
  readonly url: string;
  /** Origin without /v1 (Anthropic SDK style base URL). */
  readonly origin: string;
  readonly requests: RecordedRequest[];
  models: string[];
  /** When set, GET /v1/models answers this status. */
  modelsFailure: number | null;
  enqueue(...replies: ReplyBuilder[]): void;
  stop(): Promise<void>;
};

const RequestBody = z.looseObject({
  model: z.string().optional(),
  messages: z.array(z.unknown()).optional(),
  tools: z.array(z.unknown()).optional(),
});

const encoder = new TextEncoder();
const sse = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;
const sseEvent = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

function split(text: string, pieces: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, pieces)));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

function openAiFrames(r: ReplyBuilder, model: string): string[] {
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 0, model };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
  const frames = [chunk({ role: "assistant", content: "" })];
  let toolIndex = 0;
  for (const step of r.steps) {
    if (step.kind === "text") frames.push(chunk({ content: step.text }));
    else if (step.kind === "reasoning") frames.push(chunk({ [step.field]: step.text }));
    else if (step.kind === "raw") frames.push(step.frame);
    else {
      const index = step.omitIndex ? {} : { index: toolIndex };
      const head = { ...index, ...(step.id === null ? {} : { id: step.id }), type: "function" };
      if (step.oneChunk) {
        frames.push(chunk({ tool_calls: [{ ...head, function: { name: step.name, arguments: step.args } }] }));
      } else {
        frames.push(chunk({ tool_calls: [{ ...head, function: { name: step.name, arguments: "" } }] }));
        for (const piece of split(step.args, step.pieces)) {
          frames.push(chunk({ tool_calls: [{ ...index, function: { arguments: piece } }] }));
        }
      }
      toolIndex++;
    }
  }
  if (r.hangAtEnd) return frames;
  const hasTools = r.steps.some((s) => s.kind === "tool");
  frames.push(chunk({}, r.finishReason ?? (hasTools ? "tool_calls" : "stop")));
  const u = r.usageValue;
  if (u) {
    frames.push(
      sse({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: u.prompt,
          completion_tokens: u.completion,
          total_tokens: u.prompt + u.completion,
          ...(u.reasoning === undefined ? {} : { completion_tokens_details: { reasoning_tokens: u.reasoning } }),
          ...(u.cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: u.cached } }),
          ...(u.cost === undefined ? {} : { cost: u.cost }),
        },
      }),
    );
  }
  frames.push("data: [DONE]\n\n");
  return frames;
}

const anthropicStop: Record<string, string> = { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use", content_filter: "refusal" };

function anthropicFrames(r: ReplyBuilder, model: string): string[] {
  const u = r.usageValue;
  const frames = [
    sseEvent("message_start", {
      type: "message_start",
      message: {
        id: "msg_fake", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null,
        usage: { input_tokens: u?.prompt ?? 0, output_tokens: 1, cache_read_input_tokens: u?.cached ?? 0, cache_creation_input_tokens: 0 },
      },
    }),
  ];
  let index = -1;
  let open: "text" | "thinking" | null = null;
  const close = () => {
    if (open !== null) frames.push(sseEvent("content_block_stop", { type: "content_block_stop", index }));
    open = null;
  };
  for (const step of r.steps) {
    if (step.kind === "raw") frames.push(step.frame);
    else if (step.kind === "text" || step.kind === "reasoning") {
      const block = step.kind === "text" ? "text" : "thinking";
      if (open !== block) {
        close();
        index++;
        open = block;
        const content_block = block === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" };
        frames.push(sseEvent("content_block_start", { type: "content_block_start", index, content_block }));
      }
      const delta = block === "text" ? { type: "text_delta", text: step.text } : { type: "thinking_delta", thinking: step.text };
      frames.push(sseEvent("content_block_delta", { type: "content_block_delta", index, delta }));
    } else {
      close();
      index++;
      frames.push(
        sseEvent("content_block_start", {
          type: "content_block_start", index, content_block: { type: "tool_use", id: step.id ?? `toolu_${index}`, name: step.name, input: {} },
        }),
      );
      for (const piece of split(step.args, step.oneChunk ? 1 : step.pieces)) {
        frames.push(sseEvent("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } }));
      }
      frames.push(sseEvent("content_block_stop", { type: "content_block_stop", index }));
    }
  }
  close();
  if (r.hangAtEnd) return frames;
  const hasTools = r.steps.some((s) => s.kind === "tool");
  const finish = r.finishReason ?? (hasTools ? "tool_calls" : "stop");
  frames.push(
    sseEvent("message_delta", {
      type: "message_delta",
      delta: { stop_reason: anthropicStop[finish] ?? finish, stop_sequence: null },
      usage: { output_tokens: u?.completion ?? 0 },
    }),
  );
  frames.push(sseEvent("message_stop", { type: "message_stop" }));
  return frames;
}

function errorResponse(r: ReplyBuilder, anthropic: boolean): Response {
  const code = r.statusCode ?? 500;
  const body = anthropic
    ? { type: "error", error: { type: code === 429 ? "rate_limit_error" : "api_error", message: r.statusMessage } }
    : { error: { message: r.statusMessage, type: "fake_error", code: String(code) } };
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (r.retryAfter !== null) headers["retry-after"] = String(r.retryAfter);
  return Response.json(body, { status: code, headers });
}

export async function startFakeLlm(opts: { defaultReply?: () => ReplyBuilder } = {}): Promise<FakeLlmServer> {
  const queue: ReplyBuilder[] = [];
  const requests: RecordedRequest[] = [];
  const hanging = new Set<() => void>();
  const defaultReply = opts.defaultReply ?? (() => reply().text("Hello from the fake LLM.").usage({ prompt: 5, completion: 5 }));

  const streamFrames = (r: ReplyBuilder, frames: string[]): Response => {
    let i = 0;
    let release: (() => void) | null = null;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (r.disconnectAt !== null && i >= r.disconnectAt) {
          // Let the earlier frames reach the client first; an instant reset fails the whole fetch in Bun.
          await Bun.sleep(30);
          controller.error(); // no reason: Bun resets the socket without logging
          return;
        }
        const frame = frames[i++];
        if (frame !== undefined) {
          if (r.delayMs > 0) await Bun.sleep(r.delayMs);
          controller.enqueue(encoder.encode(frame));
          return;
        }
        if (!r.hangAtEnd) {
          controller.close();
          return;
        }
        await new Promise<void>((resolve) => {
          release = resolve;
          hanging.add(resolve);
        });
        controller.error();
      },
      cancel() {
        if (release) {
          hanging.delete(release);
          release();
        }
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
  };

  const state = { models: ["fake-model", "fake-model-large"], modelsFailure: null as number | null };

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method === "GET" && path === "/v1/models") {
        if (state.modelsFailure !== null) return Response.json({ error: { message: "models unavailable" } }, { status: state.modelsFailure });
        return Response.json({ object: "list", data: state.models.map((id) => ({ id, object: "model", created: 0, owned_by: "fake" })) });
      }
      const anthropic = path === "/v1/messages";
      if (req.method !== "POST" || (!anthropic && path !== "/v1/chat/completions")) {
        return Response.json({ error: { message: `no route ${req.method} ${path}` } }, { status: 404 });
      }
      let body: unknown = null;
      try {
        body = await req.json();
      } catch {
        return Response.json({ error: { message: "invalid JSON body" } }, { status: 400 });
      }
      const parsed = RequestBody.safeParse(body);
      requests.push({
        method: req.method,
        path,
        headers: Object.fromEntries(req.headers),
        body,
        model: parsed.success ? parsed.data.model : undefined,
        messages: parsed.success ? (parsed.data.messages ?? []) : [],
        tools: parsed.success ? parsed.data.tools : undefined,
      });
      const r = queue.shift() ?? defaultReply();
      if (r.statusCode !== null) return errorResponse(r, anthropic);
      const model = parsed.success ? (parsed.data.model ?? "fake-model") : "fake-model";
      return streamFrames(r, anthropic ? anthropicFrames(r, model) : openAiFrames(r, model));
    },
  });

  const origin = `http://127.0.0.1:${server.port}`;
  return {
    url: `${origin}/v1`,
    origin,
    requests,
    get models() {
      return state.models;
    },
    set models(list: string[]) {
      state.models = list;
    },
    get modelsFailure() {
      return state.modelsFailure;
    },
    set modelsFailure(status: number | null) {
      state.modelsFailure = status;
    },
    enqueue(...replies: ReplyBuilder[]) {
      queue.push(...replies);
    },
    async stop() {
      for (const release of hanging) release();
      hanging.clear();
      await server.stop(true);
    },
  };
}

if (import.meta.main) {
  const server = await startFakeLlm();
  process.stderr.write(`fake LLM listening on ${server.url} (OpenAI: /chat/completions, /models; Anthropic: ${server.origin}/v1/messages)\n`);
}
