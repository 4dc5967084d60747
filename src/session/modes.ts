import type { Mode } from "../approvals/edit-policy.ts";

export type ModeInfo = { id: Mode; name: string; description: string };

/** hermes-behaviour §14.5: modes are the edit-approval policy. */
export const MODES: ModeInfo[] = [
  { id: "default", name: "Default", description: "Ask before edits." },
  { id: "accept_edits", name: "Accept Edits", description: "Auto-allow workspace and /tmp edits; still asks for sensitive paths." },
  { id: "dont_ask", name: "Don't Ask", description: "Auto-allow file edits for this session except sensitive paths." },
];

export function isMode(value: unknown): value is Mode {
  return MODES.some((m) => m.id === value);
}

/** Hermes' older config id for the same setting (`edit_approval_policy` values). */
export const POLICY_TO_MODE: Record<string, Mode> = { ask: "default", workspace_session: "accept_edits", session: "dont_ask" };
