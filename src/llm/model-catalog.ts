// The model picker's inventory across every provider the user can actually use (Hermes' model_catalog): one
// group per provider with a usable credential, filled from the provider's own models endpoint, else the
// cache (even stale), else the curated list in providers.ts. Building a picker must never fail or hang, so
// nothing here throws and every request is bounded by a short timeout.
import { z } from "zod";
import { modelSettings, type HermesConfig } from "../config/load.ts";
import type { EnvLike } from "../config/paths.ts";
import type { ProviderEntry } from "../config/schema.ts";
import { endpointKey, readModelsCache, writeModelsCache, type CachedModel, type ModelsCache } from "./models-cache.ts";
import { findProvider, normaliseProviderId, providerLabel } from "./providers.ts";
import { credentialProviders, detectProvider, resolveRuntime, type Runtime } from "./resolve.ts";
import { lazy } from "../util/lazy.ts";

export type CatalogModel = { provider: string; model: string; label?: string; contextLength?: number; reasoning?: boolean };
export type CatalogGroup = { provider: string; label: string; models: CatalogModel[]; source: "live" | "cache" | "fallback" | "config" };
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export type CatalogInput = {
  config: HermesConfig;
  env: EnvLike;
  cachePath: string;
  now?: () => number;
  /** A cached listing younger than this is used without asking the provider (default 6 h). */
  ttlMs?: number;
  /** Models per group (default 50); the pinned default/current model is kept beyond it. */
  maxPerGroup?: number;
  /** The session's model, kept in its group even when the provider does not list it. */
  current?: { provider: string; model: string };
};
export type LoadCatalogInput = CatalogInput & { signal?: AbortSignal; fetchImpl?: FetchLike; timeoutMs?: number };

export const DEFAULT_TTL_MS = 6 * 60 * 60 * 1000;
export const DEFAULT_TIMEOUT_MS = 3000;
export const DEFAULT_MAX_PER_GROUP = 50;

/** The picker value for a model: `provider:model` (`custom:<name>:<model>` for named endpoints). */
export function catalogValue(model: { provider: string; model: string }): string {
  return `${model.provider}:${model.model}`;
}

/** Instant: cache (any age) and fallbacks only, never the network. */
export function cachedModelCatalog(input: CatalogInput): CatalogGroup[] {
  const cache = readModelsCache(input.cachePath);
  return planGroups(input).map((plan) => {
    if (plan.listed) return buildGroup(plan, plan.listed.map((model) => ({ model })), "config", input);
    const hit = cacheHit(cache, plan);
    return hit ? buildGroup(plan, hit.models, "cache", input) : buildGroup(plan, undefined, "fallback", input);
  });
}

/** Asks every provider whose cached listing is missing or older than the TTL, in parallel. Never throws. */
export async function loadModelCatalog(input: LoadCatalogInput): Promise<CatalogGroup[]> {
  const now = input.now ?? Date.now;
  const ttl = input.ttlMs ?? DEFAULT_TTL_MS;
  const cache = readModelsCache(input.cachePath);
  const timeout = AbortSignal.timeout(input.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
  const fetchImpl: FetchLike = input.fetchImpl ?? ((url, init) => fetch(url, init));
  const updates: ModelsCache = {};

  const groups = await Promise.all(
    planGroups(input).map(async (plan): Promise<CatalogGroup> => {
      if (plan.listed) return buildGroup(plan, plan.listed.map((model) => ({ model })), "config", input);
      const hit = cacheHit(cache, plan);
      if (hit && now() - hit.fetchedAt < ttl && hit.fetchedAt <= now()) return buildGroup(plan, hit.models, "cache", input);
      const live = signal.aborted ? undefined : await listModels(plan.runtime, fetchImpl, signal);
      if (live && live.length > 0) {
        updates[plan.provider] = { endpoint: plan.endpoint, fetchedAt: now(), models: live };
        return buildGroup(plan, live, "live", input);
      }
      return hit ? buildGroup(plan, hit.models, "cache", input) : buildGroup(plan, undefined, "fallback", input);
    }),
  );
  await writeModelsCache(input.cachePath, updates);
  return groups;
}

/** The context window a provider lists for a model, when it says (OpenRouter, vLLM, …). */
export function contextLengthFor(groups: CatalogGroup[], provider: string, model: string): number | undefined {
  const id = normaliseProviderId(provider);
  return groups.find((g) => g.provider === id)?.models.find((m) => m.model === model)?.contextLength;
}

// ---- planning -----------------------------------------------------------------------------------------

type Plan = {
  provider: string;
  label: string;
  runtime: Runtime;
  endpoint: string;
  /** Always in the group, first: the model this provider runs by default, then the session's model. */
  pinned: string[];
  /** Preferred order after the pinned ones (providers.ts or the providers: entry). */
  curated: readonly string[];
  /** An explicit `models:` list under providers: — the user's own picker list, not fetched. */
  listed?: string[];
};

function planGroups(input: CatalogInput): Plan[] {
  const { config, env } = input;
  let ids: string[];
  let primary: string | null;
  try {
    ids = credentialProviders(config, env);
    primary = detectProvider(config, env);
  } catch {
    return [];
  }
  // The provider sessions start on leads the picker.
  if (primary && ids.includes(primary)) ids = [primary, ...ids.filter((id) => id !== primary)];
  const settings = modelSettings(config);
  // model.default belongs to the configured provider; with bare auto-detection, to whichever provider wins.
  const explicitlyConfigured = Boolean(settings.provider || settings.baseUrl || settings.apiKey);
  const current = input.current ? { provider: normaliseProviderId(input.current.provider), model: input.current.model.trim() } : undefined;
  const plans: Plan[] = [];
  for (const id of ids) {
    const resolved = resolveRuntime({ config, env, requestedProvider: id });
    if (!resolved.ok) continue;
    const runtime = resolved.runtime;
    const info = findProvider(runtime.provider);
    const entry = entryFor(config, runtime.provider);
    const names = entry?.models?.map((m) => m.trim()).filter(Boolean);
    const listed = names && names.length > 0 ? names : undefined;
    const own = clean(entry?.default_model) ?? clean(entry?.model) ?? listed?.[0] ?? info?.defaultModel;
    const byDefault = runtime.provider === primary || explicitlyConfigured ? runtime.model : (own ?? runtime.model);
    const pinned = unique([byDefault, current?.provider === runtime.provider ? current.model : ""]);
    plans.push({
      provider: runtime.provider,
      label: providerLabel(runtime.provider),
      runtime,
      endpoint: endpointKey(runtime.baseUrl, runtime.apiMode),
      pinned,
      curated: listed ?? info?.models ?? [],
      ...(listed ? { listed } : {}),
    });
  }
  return plans;
}

function entryFor(config: HermesConfig, provider: string): ProviderEntry | undefined {
  const name = provider.startsWith("custom:") ? provider.slice("custom:".length) : provider;
  return Object.entries(config.providers).find(([key]) => key.trim().toLowerCase() === name)?.[1];
}

function cacheHit(cache: ModelsCache, plan: Plan) {
  const entry = cache[plan.provider];
  return entry && entry.endpoint === plan.endpoint && entry.models.length > 0 ? entry : undefined;
}

// ---- ordering -----------------------------------------------------------------------------------------

/**
 * Pinned first, then the curated ones (only those the provider lists, when it listed), then the rest
 * alphabetically. Over the cap, the newest of the rest are kept — OpenRouter lists hundreds.
 */
function buildGroup(plan: Plan, available: CachedModel[] | undefined, source: CatalogGroup["source"], input: CatalogInput): CatalogGroup {
  const max = Math.max(input.maxPerGroup ?? DEFAULT_MAX_PER_GROUP, plan.pinned.length);
  const byId = new Map<string, CachedModel>();
  for (const m of available ?? []) if (!byId.has(m.model)) byId.set(m.model, m);
  const head = unique([...plan.pinned, ...plan.curated.filter((m) => !available || byId.has(m))]).slice(0, max);
  let rest = [...byId.values()].filter((m) => !head.includes(m.model));
  const room = max - head.length;
  if (rest.length > room) rest = [...rest].sort((a, b) => (b.created ?? 0) - (a.created ?? 0)).slice(0, room);
  rest.sort((a, b) => a.model.localeCompare(b.model));
  const models = [...head.map((model) => byId.get(model) ?? { model }), ...rest].map((m) => toCatalogModel(plan.provider, m));
  return { provider: plan.provider, label: plan.label, models, source };
}

function toCatalogModel(provider: string, m: CachedModel): CatalogModel {
  const out: CatalogModel = { provider, model: m.model };
  if (m.label && m.label !== m.model) out.label = m.label;
  if (m.contextLength !== undefined) out.contextLength = m.contextLength;
  if (m.reasoning !== undefined) out.reasoning = m.reasoning;
  return out;
}

function unique(values: readonly string[]): string[] {
  return values.filter((v, i) => v !== "" && values.indexOf(v) === i);
}

function clean(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

// ---- listing ------------------------------------------------------------------------------------------

const listSchema = lazy(() => z.looseObject({ data: z.array(z.unknown()) }));
const itemSchema = lazy(() => {
  const optNumber = z.number().int().positive().optional().catch(undefined);
  const optString = z.string().optional().catch(undefined);
  return z.looseObject({
    id: z.string().min(1),
    name: optString,
    display_name: optString,
    // Servers spell the window differently: OpenRouter/Together, Groq, vLLM, LM Studio.
    context_length: optNumber,
    context_window: optNumber,
    max_model_len: optNumber,
    max_context_length: optNumber,
    top_provider: z.looseObject({ context_length: optNumber }).optional().catch(undefined),
    supported_parameters: z.array(z.string()).optional().catch(undefined),
    created: z.number().optional().catch(undefined),
    created_at: optString,
  });
});

/** Listed by OpenAI-compatible servers but useless for chat. */
const NOT_CHAT = /embed|whisper|tts|dall-e|moderation|rerank|transcribe|realtime|gpt-image|imagen|^veo|^sora|^(babbage|davinci)-/i;

async function listModels(runtime: Runtime, fetchImpl: FetchLike, signal: AbortSignal): Promise<CachedModel[] | undefined> {
  const base = runtime.baseUrl.trim().replace(/\/+$/, "");
  const headers = new Headers({ accept: "application/json" });
  let url: string;
  if (runtime.apiMode === "anthropic_messages") {
    url = `${base.replace(/\/v1$/, "")}/v1/models?limit=1000`;
    headers.set("anthropic-version", "2023-06-01");
    // Claude subscription OAuth tokens go as a bearer token with the oauth beta flag (as in anthropic-messages.ts).
    if (runtime.apiKey?.startsWith("sk-ant-oat")) {
      headers.set("authorization", `Bearer ${runtime.apiKey}`);
      headers.set("anthropic-beta", "oauth-2025-04-20");
    } else if (runtime.apiKey) headers.set("x-api-key", runtime.apiKey);
  } else {
    url = `${base}/models`;
    if (runtime.apiKey) headers.set("authorization", `Bearer ${runtime.apiKey}`);
  }
  try {
    // No redirects: following one could carry the key to another host.
    const res = await fetchImpl(url, { method: "GET", headers, signal, redirect: "error" });
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      return undefined;
    }
    const list = listSchema().safeParse(await res.json());
    return list.success ? toCachedModels(list.data.data, runtime.apiKey) : undefined;
  } catch {
    return undefined; // refused, timed out, aborted or not JSON: the caller falls back
  }
}

function toCachedModels(items: unknown[], key: string | null): CachedModel[] {
  const out: CachedModel[] = [];
  for (const raw of items) {
    const item = itemSchema().safeParse(raw);
    if (!item.success) continue;
    const d = item.data;
    const model = d.id.replace(/^models\//, "").trim(); // Gemini's OpenAI layer prefixes ids with models/
    if (!model || NOT_CHAT.test(model)) continue;
    const label = d.display_name ?? d.name;
    // A server echoing the key back must not get it into the cache file.
    if (key && key.length >= 8 && (model.includes(key) || label?.includes(key))) continue;
    const m: CachedModel = { model };
    if (label && label !== model) m.label = label;
    const context = d.context_length ?? d.top_provider?.context_length ?? d.context_window ?? d.max_model_len ?? d.max_context_length;
    if (context !== undefined) m.contextLength = context;
    if (d.supported_parameters) m.reasoning = d.supported_parameters.includes("reasoning");
    const created = d.created ?? (d.created_at ? Date.parse(d.created_at) / 1000 : undefined);
    if (created !== undefined && Number.isFinite(created)) m.created = created;
    out.push(m);
  }
  return out;
}
