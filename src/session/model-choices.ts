import type { LiveSession } from "./live-session.ts";
import { providerLabel } from "../llm/providers.ts";
import { cachedModelCatalog, catalogValue, contextLengthFor, loadModelCatalog, type CatalogGroup } from "../llm/model-catalog.ts";
import { log } from "../util/log.ts";

export type ModelChoice = { value: string; name: string; description?: string };
export type ModelGroup = { provider: string; label: string; models: ModelChoice[] };
export type ModelChoices = { current: string; groups: ModelGroup[] };

function current(session: LiveSession): { provider: string; model: string } {
  const resolved = session.resolveRuntime();
  return resolved.ok
    ? { provider: resolved.runtime.provider, model: resolved.runtime.model }
    : { provider: session.settings.provider ?? "auto", model: session.settings.model ?? "" };
}

function catalogInput(session: LiveSession, cur: { provider: string; model: string }) {
  const cfg = session.services.config();
  if (!cfg.ok) return null;
  return { config: cfg.config, env: session.services.env, cachePath: session.services.paths.modelsCache, current: cur };
}

function toGroups(groups: CatalogGroup[], cur: { provider: string; model: string }): ModelGroup[] {
  const out: ModelGroup[] = groups.map((g) => ({
    provider: g.provider,
    label: g.label,
    models: g.models.map((m) => {
      const isCurrent = m.provider === cur.provider && m.model === cur.model;
      const description = [m.label && m.label !== m.model ? m.label : "", isCurrent ? "current" : ""].filter(Boolean).join(" • ");
      return { value: catalogValue(m), name: m.model, ...(description ? { description } : {}) };
    }),
  }));
  // The session's own model is always offered, even when its provider lost its key.
  if (cur.model && !out.some((g) => g.models.some((m) => m.value === `${cur.provider}:${cur.model}`))) {
    out.unshift({ provider: cur.provider, label: providerLabel(cur.provider), models: [{ value: `${cur.provider}:${cur.model}`, name: cur.model, description: "current" }] });
  }
  return out;
}

/**
 * What the model picker offers, grouped by provider: every provider with a credential, the named
 * endpoints of `providers:`, from the models cache or curated lists — never the network, so it is instant.
 */
export function modelChoices(session: LiveSession): ModelChoices {
  const cur = current(session);
  const input = catalogInput(session, cur);
  let groups: CatalogGroup[] = [];
  try {
    groups = input ? cachedModelCatalog(input) : [];
  } catch (e) {
    log.warn("model catalogue unavailable", e);
  }
  return { current: `${cur.provider}:${cur.model}`, groups: toGroups(groups, cur) };
}

/** Refreshes the catalogue from the providers' models endpoints; true when the picker changed. */
export async function refreshModelChoices(session: LiveSession, signal?: AbortSignal): Promise<boolean> {
  const before = JSON.stringify(modelChoices(session));
  const input = catalogInput(session, current(session));
  if (!input) return false;
  await loadModelCatalog({ ...input, ...(signal ? { signal } : {}) });
  return JSON.stringify(modelChoices(session)) !== before;
}

/** The context window the catalogue knows for the session's model, if any. */
export function catalogContextLength(session: LiveSession, provider: string, model: string): number | undefined {
  const input = catalogInput(session, { provider, model });
  if (!input) return undefined;
  try {
    return contextLengthFor(cachedModelCatalog(input), provider, model);
  } catch {
    return undefined;
  }
}
