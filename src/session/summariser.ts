// Which model writes compression summaries. Hermes lets a cheaper model do it: `auxiliary.compression`
// (`provider`, `model`), or the older `compression.summary_model` / `summary_provider`. Only a model named
// there is used; an empty, `auto` or `main` provider means the session's own provider. When that model
// cannot be resolved (no key, unknown provider), the session's own model writes the summary.
import type { HermesConfig } from "../config/schema.ts";
import { resolveRuntime, type Runtime } from "../llm/resolve.ts";
import type { LlmClient } from "../llm/types.ts";
import { log } from "../util/log.ts";
import type { LiveSession } from "./live-session.ts";

export type Summariser = { llm: LlmClient; model: string };

const SESSION_PROVIDER = new Set(["", "auto", "main"]);

/** The configured summariser's provider and model, or undefined when none is named. */
export function configuredSummariser(config: HermesConfig): { provider?: string; model: string } | undefined {
  const aux = config.auxiliary?.compression;
  const model = (aux?.model ?? config.compression.summary_model ?? "").trim();
  if (!model) return undefined;
  const provider = (aux?.model ? aux.provider : config.compression.summary_provider)?.trim() ?? "";
  return SESSION_PROVIDER.has(provider.toLowerCase()) ? { model } : { provider, model };
}

export async function summariserFor(session: LiveSession, runtime: Runtime, sessionLlm: LlmClient): Promise<Summariser> {
  const own = { llm: sessionLlm, model: runtime.model };
  const cfg = session.services.config();
  const wanted = cfg.ok ? configuredSummariser(cfg.config) : undefined;
  if (!cfg.ok || !wanted) return own;
  const r = resolveRuntime({ config: cfg.config, env: session.services.env, requestedProvider: wanted.provider ?? runtime.provider, requestedModel: wanted.model });
  if (!r.ok) {
    log.warn(`compression summary model ${wanted.provider ?? runtime.provider}:${wanted.model} unavailable (${r.error}); using ${runtime.model}`);
    return own;
  }
  const sameEndpoint = r.runtime.provider === runtime.provider && r.runtime.baseUrl === runtime.baseUrl && r.runtime.apiMode === runtime.apiMode;
  return { llm: sameEndpoint ? sessionLlm : await session.services.llm(r.runtime), model: r.runtime.model };
}
