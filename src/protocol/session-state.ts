import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { LiveSession } from "../session/live-session.ts";
import { MODES } from "../session/modes.ts";
import { modelChoices } from "../session/model-choices.ts";

export function modeState(session: LiveSession): acp.SessionModeState {
  return {
    currentModeId: session.settings.mode,
    availableModes: MODES.map((m) => ({ id: m.id, name: m.name, description: m.description })),
  };
}

/** The full option list (acp-protocol §4.2): mode first, then the model picker. */
export function configOptions(session: LiveSession): acp.SessionConfigOption[] {
  const mode: acp.SessionConfigOption = {
    id: "mode",
    name: "Mode",
    description: "When Hermes asks before editing files",
    category: "mode",
    type: "select",
    currentValue: session.settings.mode,
    options: MODES.map((m) => ({ value: m.id, name: m.name, description: m.description })),
  };
  const choices = modelChoices(session);
  const model: acp.SessionConfigOption = {
    id: "model",
    name: "Model",
    category: "model",
    type: "select",
    currentValue: choices.current,
    options: choices.groups.map((g) => ({
      group: g.provider,
      name: g.label,
      options: g.models.map((m) => ({ value: m.value, name: m.name, ...(m.description ? { description: m.description } : {}) })),
    })),
  };
  return [mode, model];
}
