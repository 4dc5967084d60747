// Server-sent events over fetch, batched per network read: one read may complete many events, and per-read
// (not per-event) work is what keeps a 10,000-delta stream close to a bare reader.
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";

/** Bytes in, completed events out. Incomplete trailing data waits for the next read (and is dropped at EOF, per spec). */
export class SseDecoder {
  private readonly text = new TextDecoder();
  private batch: EventSourceMessage[] = [];
  private readonly parser: EventSourceParser = createParser({ onEvent: (event) => this.batch.push(event) });

  /** The events the bytes completed, in order; a fresh array per call (empty reads share one). */
  feed(bytes: Uint8Array): readonly EventSourceMessage[] {
    this.parser.feed(this.text.decode(bytes, { stream: true }));
    if (this.batch.length === 0) return NONE;
    const out = this.batch;
    this.batch = [];
    return out;
  }
}

const NONE: readonly EventSourceMessage[] = Object.freeze([]);

/** Where the first server-sent event in `bytes` ends (just past its blank line), or -1 when none ends there. */
export function firstEventEnd(bytes: Uint8Array): number {
  for (let i = 1; i < bytes.length; i++) {
    if (bytes[i] !== 0x0a) continue;
    if (bytes[i - 1] === 0x0a) return i + 1;
    if (bytes[i - 1] === 0x0d && i >= 3 && bytes[i - 2] === 0x0a && bytes[i - 3] === 0x0d) return i + 1;
  }
  return -1;
}

/**
 * The body's reads until `finished()` says the consumer saw the end marker, checked after each read was consumed,
 * so the request ends at the marker even if a proxy holds the connection open.
 */
export async function* readUntil(body: AsyncIterable<Uint8Array>, finished: () => boolean): AsyncGenerator<Uint8Array> {
  for await (const bytes of body) {
    yield bytes;
    if (finished()) return;
  }
}

/** The message of an HTTP error body: JSON `error.message` / `error` / `message` / `detail`, else the text itself. */
export function errorBodyMessage(body: string, maxChars = 500): string {
  const text = body.trim();
  if (text === "") return "";
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return clip(text, maxChars);
  }
  const found = messageIn(json);
  return clip(found ?? text, maxChars);
}

/** `x.error.message`, `x.error` (Ollama), `x.message` or `x.detail` (FastAPI servers) when a string. */
export function messageIn(json: unknown): string | undefined {
  if (!isRecord(json)) return typeof json === "string" ? json : undefined;
  const error = json.error;
  if (isRecord(error) && typeof error.message === "string") return error.message;
  if (typeof error === "string") return error;
  if (typeof json.message === "string") return json.message;
  if (typeof json.detail === "string") return json.detail;
  return undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function clip(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}
