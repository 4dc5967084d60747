import type { LiveSession } from "./live-session.ts";
import { findProvider, providerLabel } from "../llm/providers.ts";

export type ModelChoice = { value: string; name: string; description?: string };
export type ModelGroup = { provider: string; label: string; models: ModelChoice[] };

/** What the model picker offers: the session's model plus the curated models of its provider. */
export function modelChoices(session: LiveSession): { current: string; groups: ModelGroup[] } {
  const resolved = session.resolveRuntime();
  const provider = resolved.ok ? resolved.runtime.provider : (session.settings.provider ?? "auto");
  const model = resolved.ok ? resolved.runtime.model : (session.settings.model ?? "");
  const current = `${provider}:${model}`;
  const info = findProvider(provider);
  const names = [model, ...(info?.models ?? [])].filter((m, i, all) => m && all.indexOf(m) === i);
  return {
    current,
    groups: [
      {
        provider,
        label: providerLabel(provider),
        models: names.map((m) => ({ value: `${provider}:${m}`, name: m, ...(m === model ? { description: "current" } : {}) })),
      },
    ],
  };
}
