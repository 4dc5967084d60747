import type { Mode } from "../approvals/edit-policy.ts";
import { DomainError } from "./errors.ts";
import type { LiveSession } from "./live-session.ts";
import { isMode, POLICY_TO_MODE } from "./modes.ts";
import { switchModel } from "./switch-model.ts";

export const THOUGHT_LEVELS = ["default", "low", "medium", "high"] as const;

/** A mode id, or Hermes' older `edit_approval_policy` value for it; anything else is refused. */
export function parseMode(value: unknown): Mode {
  const mode = typeof value === "string" ? (isMode(value) ? value : POLICY_TO_MODE[value]) : undefined;
  if (!mode) throw new DomainError("INVALID_VALUE", `Unknown mode "${String(value)}". Available: default, accept_edits, dont_ask.`);
  return mode;
}

export function setMode(session: LiveSession, mode: Mode): void {
  session.settings = { ...session.settings, mode };
  session.saveSettings();
}

/**
 * Applies one config option (`session/set_config_option`); returns the new mode when the mode changed,
 * so the caller can announce it.
 */
export function setConfigOption(session: LiveSession, configId: string, value: unknown): Mode | null {
  switch (configId) {
    case "mode":
    case "edit_approval_policy": {
      const mode = parseMode(value);
      setMode(session, mode);
      return mode;
    }
    case "model":
      if (typeof value !== "string" || !value.trim()) throw new DomainError("INVALID_VALUE", "The model value must be a non-empty string.");
      switchModel(session, value);
      return null;
    case "thought_level": {
      if (typeof value !== "string" || !(THOUGHT_LEVELS as readonly string[]).includes(value)) {
        throw new DomainError("INVALID_VALUE", `Unknown thinking level "${String(value)}". Available: ${THOUGHT_LEVELS.join(", ")}.`);
      }
      const { thought_level: _previous, ...rest } = session.settings.options;
      session.settings = { ...session.settings, options: value === "default" ? rest : { ...rest, thought_level: value } };
      session.saveSettings();
      return null;
    }
    default:
      throw new DomainError("INVALID_VALUE", `Unknown config option "${configId}". Available: mode, model, thought_level.`);
  }
}
