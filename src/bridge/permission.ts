import type * as acp from "@agentclientprotocol/sdk";
import { z } from "zod";
import type { PermissionAsk, PermissionPort } from "../approvals/session-approver.ts";
import { toToolCallContent } from "./to-session-update.ts";
import { lazy } from "../util/lazy.ts";

// The client's answer is untrusted input: validate it before acting on it.
const Outcome = lazy(() =>
  z.object({
    outcome: z.union([z.object({ outcome: z.literal("selected"), optionId: z.string() }), z.object({ outcome: z.literal("cancelled") })]),
  }),
);

/** Asks the editor with `session/request_permission`; aborting the signal withdraws the request. */
export function acpPermissionPort(client: acp.AgentContext, sessionId: string): PermissionPort {
  return {
    async ask(request: PermissionAsk, signal: AbortSignal) {
      const response = await client.request(
        "session/request_permission",
        {
          sessionId,
          toolCall: {
            toolCallId: request.toolCallId,
            title: request.title,
            kind: request.kind,
            status: "pending",
            content: request.content.map(toToolCallContent),
            rawInput: request.rawInput,
            ...(request.locations ? { locations: request.locations } : {}),
          },
          options: request.options,
        },
        { cancellationSignal: signal },
      );
      const parsed = Outcome().safeParse(response);
      if (!parsed.success) return { outcome: "selected", optionId: "__invalid_answer__" };
      return parsed.data.outcome;
    },
  };
}
