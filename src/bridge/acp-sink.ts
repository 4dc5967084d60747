import type * as acp from "@agentclientprotocol/sdk";
import type { AgentEvent, EventSink } from "../agent/events.ts";
import { toSessionUpdate, type UpdateGates } from "./to-session-update.ts";

/** Sends agent events as `session/update` notifications, in order; variants the client did not opt in to are dropped. */
export function acpEventSink(client: acp.AgentContext, sessionId: string, gates: UpdateGates): EventSink {
  return {
    async emit(event: AgentEvent) {
      const update = toSessionUpdate(event, gates);
      if (update) await client.notify("session/update", { sessionId, update });
    },
  };
}
