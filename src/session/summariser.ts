// Which model writes compression summaries. Hermes lets a cheaper model do it: `auxiliary.compression`
// (`provider`, `model`), or the older `compression.summary_model` / `summary_provider`. Only a model named
// there is used; an empty, `auto` or `main` provider means the session's own provider. When that model
// cannot be resolved (no key, unknown provider), the session's own model writes the summary.
import type { EnvLike } from "../config/paths.ts";
import type { HermesConfig } from "../config/schema.ts";
import { resolveRuntime, type ResolveResult, type Runtime } from "../llm/resolve.ts";
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

/** The named summariser resolved next to the session's runtime, with a label for messages; undefined when none is named. */
export function resolveSummariser(config: HermesConfig, env: EnvLike, session: Runtime): { label: string; result: ResolveResult } | undefined {
  const wanted = configuredSummariser(config);
  if (!wanted) return undefined;
  const provider = wanted.provider ?? session.provider;
  return { label: `${provider}:${wanted.model}`, result: resolveRuntime({ config, env, requestedProvider: provider, requestedModel: wanted.model }) };
}

export async function summariserFor(session: LiveSession, runtime: Runtime, sessionLlm: LlmClient): Promise<Summariser> {
  const own = { llm: sessionLlm, model: runtime.model };
  const cfg = session.services.config();
  const named = cfg.ok ? resolveSummariser(cfg.config, session.services.env, runtime) : undefined;
  if (!named) return own;
  if (!named.result.ok) {
    log.warn(`compression summary model ${named.label} unavailable (${named.result.error}); using ${runtime.model}`);
    return own;
  }
  const r = named.result.runtime;
  const sameEndpoint = r.provider === runtime.provider && r.baseUrl === runtime.baseUrl && r.apiMode === runtime.apiMode;
  return { llm: sameEndpoint ? sessionLlm : await session.services.llm(r), model: r.model };
}
