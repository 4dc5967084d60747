// The first thing on the wire. It answers `initialize` by hand — before the ACP SDK, SQLite or config
// are loaded — so the editor sees the agent in about the time a bare Bun program takes. Every message
// after `initialize` is parsed here, once, and handed to the SDK app (loaded once, on demand) as an object;
// what the app sends comes back through here as objects too, one line each.

import type { InitializeRequestParams } from "./initialize.ts";
import { trace } from "../util/trace.ts";

export type FrontHandlers = {
  /** Builds the initialize result. Must be cheap: it runs before anything heavy is loaded. */
  initialize(params: InitializeRequestParams): unknown | Promise<unknown>;
  /** Loads the SDK app and connects it to every message after `initialize` (parsed objects) and to `send`. */
  connect(messages: ReadableStream<Record<string, unknown>>, send: (message: object) => void): Promise<{ closed: Promise<void> }>;
};

const encoder = new TextEncoder();
/** The SDK's own limit (DEFAULT_MAX_MESSAGE_BYTES): it closes the stream on anything longer, so we refuse first. */
const MAX_LINE_BYTES = 32 * 1024 * 1024;
/**
 * When stdin ends, requests already read get this long to be answered once the app is loaded (a script piping
 * requests in and closing stdin still gets its answers); then the app is closed and whatever still runs is cancelled.
 */
const EOF_GRACE_MS = 50;

type Frame = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };

function errorLine(id: unknown, code: number, message: string, data?: unknown): Uint8Array {
  return encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error: { code, message, data } })}\n`);
}

const isRecord = (v: unknown): v is Frame => typeof v === "object" && v !== null && !Array.isArray(v);

const isValidId = (id: unknown): boolean => id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));

/** What makes a frame not a JSON-RPC request or notification (only checked before `initialize`; the SDK does it after). */
function frameProblem(frame: Frame): string | null {
  if (typeof frame.method !== "string") return "a request needs a string method";
  if (frame.id !== undefined && !isValidId(frame.id)) return "the id must be a string, a number or null";
  return null;
}

/** `initialize` params as the SDK would check them: an object with an integer protocolVersion 0–65535. */
function initializeParamsProblem(params: unknown): string | null {
  if (params === null || typeof params !== "object" || Array.isArray(params)) return "initialize params must be an object";
  const version = (params as { protocolVersion?: unknown }).protocolVersion;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 0 || version > 65535) {
    return "protocolVersion must be an integer between 0 and 65535";
  }
  return null;
}

/** A line as JSON-RPC reads it: an object, or the error it is answered with (what the SDK's own reader answered). */
function readLine(line: string): { frame: Frame } | { error: Uint8Array } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { error: errorLine(null, -32700, "Parse error") };
  }
  if (Array.isArray(value)) return { error: errorLine(null, -32600, "Invalid request: JSON-RPC batches are not supported") };
  if (!isRecord(value)) return { error: errorLine(null, -32600, "Invalid request", value) };
  return { frame: value };
}

/**
 * Runs the ACP front over a byte stream. Requests before `initialize` get -32600 (as the SDK would);
 * every later `initialize` is answered here too, so the SDK never needs its own handler.
 * Resolves when the input ends and the app (if started) has closed.
 */
export async function runFront(input: ReadableStream<Uint8Array>, write: (bytes: Uint8Array) => void, handlers: FrontHandlers): Promise<void> {
  let initialized = false;
  let app: Promise<{ closed: Promise<void> }> | undefined;
  let toApp: ReadableStreamDefaultController<Record<string, unknown>> | undefined;
  const appInput = new ReadableStream<Record<string, unknown>>({
    start(controller) {
      toApp = controller;
    },
  });

  // Requests handed to the app and not answered yet (by JSON id), and who waits for none to be left.
  const unanswered = new Set<string>();
  let allAnswered = Promise.withResolvers<void>();
  const send = (message: object) => {
    const m = message as Frame;
    if (m.id !== undefined && m.method === undefined && unanswered.delete(JSON.stringify(m.id)) && unanswered.size === 0) allAnswered.resolve();
    write(encoder.encode(`${JSON.stringify(message)}\n`));
  };

  // Lines are handled strictly in order: a later line waits until the initialize answer is out.
  let queue: Promise<void> = Promise.resolve();

  const answerInitialize = async (frame: Frame): Promise<void> => {
    if (frame.id === undefined) return; // a notification named initialize is ignored
    const problem = initializeParamsProblem(frame.params);
    if (problem) {
      write(errorLine(frame.id, -32602, `Invalid params: ${problem}`));
      return;
    }
    let result: unknown;
    try {
      result = await handlers.initialize((frame.params ?? {}) as InitializeRequestParams);
    } catch (e) {
      write(errorLine(frame.id, -32603, `Internal error: ${e instanceof Error ? e.message : String(e)}`));
      return;
    }
    write(encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", id: frame.id, result })}\n`));
    trace("initialize answered");
    initialized = true;
    app ??= handlers.connect(appInput, send);
  };

  const handleLine = async (raw: string): Promise<void> => {
    // A byte-order mark before a line is dropped, as a TextDecoder reading that line alone would.
    const line = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
    if (!line.trim()) return;
    if (line.length * 3 > MAX_LINE_BYTES && Buffer.byteLength(line) >= MAX_LINE_BYTES) {
      write(errorLine(null, -32600, "Invalid request: message too large"));
      return;
    }
    const read = readLine(line);
    if ("error" in read) {
      write(read.error);
      return;
    }
    const { frame } = read;
    if (!initialized) {
      const shape = frameProblem(frame);
      if (shape) {
        write(errorLine(isValidId(frame.id) ? frame.id : null, -32600, `Invalid request: ${shape}`));
        return;
      }
      if (frame.method === "initialize") return answerInitialize(frame);
      if (frame.id !== undefined) {
        write(errorLine(frame.id, -32600, `Invalid request: ACP connection must be initialized before '${String(frame.method)}'`));
      }
      return;
    }
    if (frame.method === "initialize") return answerInitialize(frame);
    if (frame.id !== undefined && frame.method !== undefined) {
      if (unanswered.size === 0) allAnswered = Promise.withResolvers<void>();
      unanswered.add(JSON.stringify(frame.id));
    }
    try {
      toApp?.enqueue(frame);
    } catch {
      // The app's stream is closed (shutting down): nothing left to answer with.
    }
  };
  const onLine = (line: string) => {
    // One failing line must not stop the ones after it.
    queue = queue.then(() => handleLine(line)).catch(() => undefined);
  };

  const decoder = new TextDecoder();
  let buffer = "";
  // After an oversized line, skip to its end instead of buffering it.
  let discarding = false;
  for await (const chunk of input) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      if (discarding) discarding = false;
      else onLine(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
    if (buffer.length > MAX_LINE_BYTES) {
      if (!discarding) queue = queue.then(() => write(errorLine(null, -32600, "Invalid request: message too large")));
      discarding = true;
      buffer = "";
    }
  }
  if (!discarding) onLine(buffer);
  await queue;
  // The grace starts once the app has loaded (it is for answering, not for loading); an app that failed to load answers nothing.
  if (unanswered.size > 0 && app && (await app.then(() => true, () => false))) {
    await Promise.race([allAnswered.promise, Bun.sleep(EOF_GRACE_MS)]);
  }
  toApp?.close();
  if (app) await (await app).closed;
}
