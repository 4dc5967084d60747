// A raw JSON-RPC peer for tests: speaks newline-delimited JSON like an editor does, records every
// frame in both directions, and answers the agent's requests with registered handlers.

export type Json = Record<string, unknown>;
export type RpcResponse = { id: unknown; result?: Json; error?: { code: number; message: string; data?: unknown } };
type Pending = { resolve: (r: RpcResponse) => void };

export class RpcPeer {
  readonly received: Json[] = [];
  readonly sent: Json[] = [];
  readonly rawLines: string[] = [];
  private nextId = 1;
  private pending = new Map<unknown, Pending>();
  private handlers = new Map<string, (params: Json) => unknown | Promise<unknown>>();
  private waiters: { pred: (m: Json) => boolean; resolve: (m: Json) => void }[] = [];
  closed: Promise<void>;

  constructor(
    private readonly writeLine: (line: string) => void,
    lines: AsyncIterable<string>,
  ) {
    this.closed = (async () => {
      for await (const line of lines) this.onLine(line);
    })();
  }

  private onLine(line: string) {
    this.rawLines.push(line);
    let msg: Json;
    try {
      msg = JSON.parse(line) as Json;
    } catch {
      throw new Error(`agent wrote a non-JSON line to stdout: ${line}`);
    }
    this.received.push(msg);
    for (const w of [...this.waiters]) {
      if (w.pred(msg)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(msg);
      }
    }
    if ("method" in msg && "id" in msg) {
      void this.answer(msg);
    } else if ("id" in msg && ("result" in msg || "error" in msg)) {
      this.pending.get(msg.id)?.resolve(msg as RpcResponse);
      this.pending.delete(msg.id);
    }
  }

  private async answer(msg: Json) {
    const handler = this.handlers.get(String(msg.method));
    if (!handler) {
      this.send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } });
      return;
    }
    try {
      const result = await handler((msg.params ?? {}) as Json);
      if (result === NO_ANSWER) return;
      this.send({ jsonrpc: "2.0", id: msg.id, result });
    } catch (e) {
      this.send({ jsonrpc: "2.0", id: msg.id, error: { code: -32603, message: String(e) } });
    }
  }

  send(msg: Json) {
    this.sent.push(msg);
    this.writeLine(JSON.stringify(msg));
  }

  sendRaw(line: string) {
    this.writeLine(line);
  }

  request(method: string, params: unknown = {}, timeoutMs = 15_000): Promise<RpcResponse> {
    const id = this.nextId++;
    const p = new Promise<RpcResponse>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no response to ${method} within ${timeoutMs} ms`)), timeoutMs);
      this.pending.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      });
    });
    this.send({ jsonrpc: "2.0", id, method, params });
    return p;
  }

  /** Like request, but fails the test on a JSON-RPC error. */
  async call(method: string, params: unknown = {}): Promise<Json> {
    const r = await this.request(method, params);
    if (r.error) throw new Error(`${method} failed: ${r.error.code} ${r.error.message}`);
    return r.result ?? {};
  }

  notify(method: string, params: unknown = {}) {
    this.send({ jsonrpc: "2.0", method, params });
  }

  onRequest(method: string, handler: (params: Json) => unknown | Promise<unknown>) {
    this.handlers.set(method, handler);
  }

  waitFor(pred: (m: Json) => boolean, timeoutMs = 10_000): Promise<Json> {
    const found = this.received.find(pred);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timed out waiting for a message")), timeoutMs);
      this.waiters.push({
        pred,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  /** session/update payloads received so far, optionally for one session. */
  updates(sessionId?: string): Json[] {
    return this.received
      .filter((m) => m.method === "session/update")
      .map((m) => m.params as Json)
      .filter((p) => !sessionId || p.sessionId === sessionId)
      .map((p) => p.update as Json);
  }

  clear() {
    this.received.length = 0;
    this.rawLines.length = 0;
  }
}

/** Returned by a request handler to leave the agent's request unanswered (a client that never answers). */
export const NO_ANSWER = Symbol("no-answer");

export async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of stream) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim()) yield line;
    }
  }
  if (buffer.trim()) yield buffer;
}

/**
 * Streamed text may arrive split or merged (the agent coalesces deltas while a write is in flight):
 * joins consecutive chunks of the same kind and message so tests compare what the user sees.
 */
export function mergeChunks(updates: Json[]): Json[] {
  const out: Json[] = [];
  for (const u of updates) {
    const last = out.at(-1);
    const chunky = u.sessionUpdate === "agent_message_chunk" || u.sessionUpdate === "agent_thought_chunk";
    if (chunky && last && last.sessionUpdate === u.sessionUpdate && last.messageId === u.messageId && !last._meta && !u._meta) {
      const text = String((last.content as Json).text) + String((u.content as Json).text);
      out[out.length - 1] = { ...last, content: { ...(last.content as Json), text } };
    } else out.push(u);
  }
  return out;
}
