import type { FallbackTarget } from "../llm/fallback.ts";
import { resolveRuntime, type Runtime } from "../llm/resolve.ts";
import type { LlmError } from "../llm/types.ts";
import { log } from "../util/log.ts";
import type { LiveSession } from "./live-session.ts";

/**
 * The session's fallback chain from config.yaml `fallback_providers` (names, `provider:model`, or
 * mappings with provider and model), skipping the provider already failing and any that cannot resolve.
 */
export function fallbackTargets(session: LiveSession, primary: Runtime): () => Promise<FallbackTarget | undefined> {
  const cfg = session.services.config();
  const entries = cfg.ok ? cfg.config.fallback_providers : [];
  const tried = new Set([`${primary.provider}:${primary.model}`]);
  let index = 0;
  return async () => {
    while (cfg.ok && index < entries.length) {
      const entry = entries[index++]!;
      const [provider, model] = typeof entry === "string" ? splitEntry(entry) : [entry.provider, entry.model];
      if (!provider) continue;
      const r = resolveRuntime({ config: cfg.config, env: session.services.env, requestedProvider: provider, ...(model ? { requestedModel: model } : {}) });
      if (!r.ok) {
        log.warn(`fallback provider ${provider} unavailable: ${r.error}`);
        continue;
      }
      const key = `${r.runtime.provider}:${r.runtime.model}`;
      if (tried.has(key)) continue;
      tried.add(key);
      return { client: await session.services.llm(r.runtime), provider: r.runtime.provider, model: r.runtime.model };
    }
    return undefined;
  };
}

function splitEntry(entry: string): [string | undefined, string | undefined] {
  const at = entry.indexOf(":");
  if (at < 0 || entry.startsWith("custom:")) return [entry.trim(), undefined];
  return [entry.slice(0, at).trim(), entry.slice(at + 1).trim() || undefined];
}

/** The session follows a fallback: its model setting, the picker, and a notice saying why. */
export async function followFallback(session: LiveSession, to: FallbackTarget, error: LlmError): Promise<void> {
  const { baseUrl: _b, apiMode: _a, ...settings } = session.settings;
  session.settings = { ...settings, provider: to.provider, model: to.model };
  session.saveSettings();
  const label = `${to.provider}:${to.model}`;
  log.warn(`session ${session.id} falls back to ${label}: ${error.message}`);
  await session.ports.sink.emit({ type: "notice", severity: "warning", title: `Switched to ${label}`, description: error.message });
  await session.announceConfigOptions();
}
