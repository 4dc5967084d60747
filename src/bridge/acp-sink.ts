import type * as acp from "@agentclientprotocol/sdk";
import type { AgentEvent, EventSink } from "../agent/events.ts";
import { toSessionUpdate, type UpdateGates } from "./to-session-update.ts";

/** About one editor frame: merged text arrives as smoothly as the editor can show it. */
const COALESCE_WINDOW_MS = 16;

type Chunk = Extract<AgentEvent, { type: "message_chunk" | "thought_chunk" }>;

const isChunk = (e: AgentEvent): e is Chunk => (e.type === "message_chunk" || e.type === "thought_chunk") && !("meta" in e && e.meta);

/**
 * Sends agent events as `session/update` notifications, in order; variants the client did not opt in
 * to are dropped. Text deltas are write-behind: a delta after a quiet spell goes out at once, and the
 * deltas of the next few milliseconds are merged into one chunk (a fast model sends thousands of tiny
 * deltas; one notification each costs more than the model's own stream, and no editor repaints that
 * often). Any other event first flushes the text.
 */
export function acpEventSink(client: acp.AgentContext, sessionId: string, gates: UpdateGates, windowMs = COALESCE_WINDOW_MS): EventSink {
  let pending: Chunk | null = null;
  /** The last write; every write waits for the one before it, so order is kept. */
  let tail: Promise<void> = Promise.resolve();
  let window: ReturnType<typeof setTimeout> | null = null;

  const send = (event: AgentEvent): Promise<void> => {
    const update = toSessionUpdate(event, gates);
    if (!update) return tail;
    tail = tail.then(() => client.notify("session/update", { sessionId, update })).catch(() => undefined);
    return tail;
  };

  /** Queues the merged text, if any, as one notification. */
  const sendPending = (): Promise<void> => {
    const chunk = pending;
    pending = null;
    return chunk ? send(chunk) : tail;
  };

  const sink: EventSink = {
    async emit(event) {
      if (isChunk(event)) {
        if (pending && pending.type === event.type && pending.messageId === event.messageId) {
          pending = { ...pending, text: pending.text + event.text };
        } else {
          void sendPending();
          pending = { ...event };
        }
        if (!window) {
          // After a quiet spell the text goes out at once; what follows within the window is merged.
          void sendPending();
          window = setTimeout(() => {
            window = null;
            void sendPending();
          }, windowMs);
        }
        return;
      }
      await flushed();
      await send(event);
    },
    flush: flushed,
  };

  async function flushed(): Promise<void> {
    if (window) clearTimeout(window);
    window = null;
    await sendPending();
  }

  return sink;
}
