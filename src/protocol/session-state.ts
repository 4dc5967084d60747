import type * as acp from "@agentclientprotocol/sdk";
import type { LiveSession } from "../session/live-session.ts";
import { MODES } from "../session/modes.ts";
import { modelChoices, type ModelChoices } from "../session/model-choices.ts";
import { THOUGHT_LEVELS } from "../session/options.ts";

export function modeState(session: LiveSession): acp.SessionModeState {
  return {
    currentModeId: session.settings.mode,
    availableModes: MODES.map((m) => ({ id: m.id, name: m.name, description: m.description })),
  };
}

/** Providers whose OpenAI-compatible endpoint takes `reasoning_effort`. */
const EFFORT_PROVIDERS = new Set(["openai-api", "openrouter", "xai", "gemini", "custom"]);

function thoughtLevelOption(session: LiveSession, provider: string): acp.SessionConfigOption | null {
  if (!EFFORT_PROVIDERS.has(provider.split(":")[0] ?? provider)) return null;
  return {
    id: "thought_level",
    name: "Thinking",
    description: "Reasoning effort for models that support it",
    category: "thought_level",
    type: "select",
    currentValue: session.settings.options.thought_level ?? "default",
    options: THOUGHT_LEVELS.map((v) => ({ value: v, name: v === "default" ? "Provider default" : v[0]!.toUpperCase() + v.slice(1) })),
  };
}

/** The older `models` state, for clients that still read it instead of the model config option. */
export function legacyModelState(choices: ModelChoices): { currentModelId: string; availableModels: { modelId: string; name: string; description?: string }[] } {
  return {
    currentModelId: choices.current,
    availableModels: choices.groups.flatMap((g) =>
      g.models.map((m) => ({ modelId: m.value, name: m.name, description: [`Provider: ${g.label}`, m.description].filter(Boolean).join(" • ") })),
    ),
  };
}

/** The full option list (acp-protocol §4.2): mode first, then the model picker, then thinking when supported. */
export function configOptions(session: LiveSession, choices: ModelChoices = modelChoices(session)): acp.SessionConfigOption[] {
  const mode: acp.SessionConfigOption = {
    id: "mode",
    name: "Mode",
    description: "When Hermes asks before editing files",
    category: "mode",
    type: "select",
    currentValue: session.settings.mode,
    options: MODES.map((m) => ({ value: m.id, name: m.name, description: m.description })),
  };
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
  const thinking = thoughtLevelOption(session, choices.current.split(":")[0] ?? "");
  return thinking ? [mode, model, thinking] : [mode, model];
}
