import type * as acp from "@agentclientprotocol/sdk";
import type { AgentEvent, EventSink } from "../agent/events.ts";
import { toSessionUpdate, type UpdateGates } from "./to-session-update.ts";

type Chunk = Extract<AgentEvent, { type: "message_chunk" | "thought_chunk" }>;

const isChunk = (e: AgentEvent): e is Chunk => (e.type === "message_chunk" || e.type === "thought_chunk") && !("meta" in e && e.meta);

/**
 * Sends agent events as `session/update` notifications, in order; variants the client did not opt in
 * to are dropped. Text deltas are write-behind: the first goes out at once, and deltas that arrive
 * while a write is in flight are merged into one chunk (a fast model sends thousands of tiny deltas;
 * one notification each costs more than the model's own stream). Other events first flush the text.
 */
export function acpEventSink(client: acp.AgentContext, sessionId: string, gates: UpdateGates): EventSink {
  let pending: Chunk | null = null;
  let writing: Promise<void> | null = null;

  const send = async (event: AgentEvent) => {
    const update = toSessionUpdate(event, gates);
    if (update) await client.notify("session/update", { sessionId, update });
  };

  /** Writes merged text until none is left; only one drain runs at a time. */
  const drain = (): Promise<void> => {
    writing ??= (async () => {
      try {
        while (pending) {
          const chunk = pending;
          pending = null;
          await send(chunk);
        }
      } finally {
        writing = null;
      }
    })();
    return writing;
  };

  const sink: EventSink = {
    async emit(event) {
      if (isChunk(event)) {
        if (pending && pending.type === event.type && pending.messageId === event.messageId) {
          pending = { ...pending, text: pending.text + event.text };
        } else {
          if (pending) await drain();
          pending = { ...event };
        }
        // Not awaited: the caller keeps reading the model while this goes out.
        void drain().catch(() => undefined);
        return;
      }
      await sink.flush();
      await send(event);
    },
    async flush() {
      while (pending || writing) await drain();
    },
  };
  return sink;
}
