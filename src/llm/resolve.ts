// Which provider, endpoint, key and model a session runs on — Hermes' runtime resolution. Pure: config and env
// come in, a Runtime or a user-facing error (saying how to fix it) comes out.
import { modelSettings, type HermesConfig, type ModelSettings } from "../config/load.ts";
import { hermesHome, hermesPaths, type EnvLike } from "../config/paths.ts";
import type { ProviderEntry } from "../config/schema.ts";
import { AUTO_DETECT_ORDER, PROVIDERS, findProvider, normaliseProviderId, type ProviderInfo, type RuntimeApiMode } from "./providers.ts";

export type Runtime = {
  /** Catalogue id (`openrouter`, `anthropic`, …), `custom`, or `custom:<name>` for a `providers:` entry. */
  provider: string;
  model: string;
  baseUrl: string;
  apiKey: string | null;
  apiMode: RuntimeApiMode;
  contextLength?: number;
  maxTokens?: number;
  /** Why this provider: `request`, `config:model.provider`, `env:HERMES_INFERENCE_PROVIDER`, `auto:<ENV_KEY>`, … */
  source: string;
  /** Where the key came from (an env variable name or a config key), never the key itself. */
  keySource?: string;
};

export type ResolveInput = {
  config: HermesConfig;
  env: EnvLike;
  requestedProvider?: string;
  requestedModel?: string;
  baseUrl?: string;
  apiMode?: string;
};

export type ResolveResult = { ok: true; runtime: Runtime } | { ok: false; error: string };

const SETUP_HINT = "run `hermes-acp --setup`";

export function resolveRuntime(input: ResolveInput): ResolveResult {
  const { config, env } = input;
  const settings = modelSettings(config);
  const configured = configuredProvider(settings, config);
  const chosen = chooseProvider(input, settings, configured);
  if (!chosen) {
    return fail(
      `No model provider is configured. Put an API key such as OPENROUTER_API_KEY or ANTHROPIC_API_KEY in ${envFile(env)}, set model.provider in config.yaml, or ${SETUP_HINT}.`,
    );
  }
  const target = findTarget(chosen.id, config);
  if ("error" in target) return fail(target.error);

  // model.* settings belong to the configured provider; never send its key or endpoint to another one.
  const ours = configured === undefined || configured === target.id;
  const scoped = {
    model: ours ? settings.default : undefined,
    baseUrl: configured === target.id ? expand(settings.baseUrl, env) : undefined,
    apiKey: configured === target.id ? expand(settings.apiKey, env) : undefined,
    apiMode: configured === target.id ? settings.apiMode : undefined,
    contextLength: ours ? settings.contextLength : undefined,
    maxTokens: ours ? settings.maxTokens : undefined,
  };
  const entry = target.entry;
  const info = target.info;

  const baseUrl =
    clean(input.baseUrl) ?? scoped.baseUrl ?? expand(entry?.base_url, env) ?? (info?.baseUrlEnv ? clean(env[info.baseUrlEnv]) : undefined) ?? clean(info?.baseUrl);
  if (!baseUrl) {
    return fail(
      info
        ? `Provider "custom" needs an endpoint: set model.base_url in config.yaml or OPENAI_BASE_URL in ${envFile(env)}, or ${SETUP_HINT}.`
        : `Provider "${target.id}" has no base_url: add one under providers.${target.name} in config.yaml.`,
    );
  }

  const key = findKey(scoped.apiKey, entry, info, env);
  if (!key && info?.requiresKey) {
    const names = info.keyEnv.join(" or ");
    return fail(`Provider "${info.id}" (${info.label}) needs an API key: set ${names} in ${envFile(env)}, or ${SETUP_HINT}.`);
  }

  const modeText = clean(input.apiMode) ?? scoped.apiMode ?? clean(entry?.api_mode);
  const apiMode = modeText ? toApiMode(modeText) : inferApiMode(info, baseUrl);
  if (apiMode === undefined) {
    return fail(
      `api_mode "${modeText}" for provider "${target.id}" is not supported by hermes-acp (it speaks chat_completions and anthropic_messages). Change api_mode in config.yaml or pick another provider.`,
    );
  }

  const model =
    clean(input.requestedModel) ?? scoped.model ?? clean(entry?.default_model) ?? clean(entry?.model) ?? entry?.models?.[0] ?? info?.defaultModel;
  if (!model) {
    return fail(`No model chosen for provider "${target.id}": set model.default in config.yaml, or pick one with /model.`);
  }

  const runtime: Runtime = { provider: target.id, model, baseUrl, apiKey: key?.value ?? null, apiMode, source: chosen.source };
  const contextLength = scoped.contextLength ?? entry?.context_length;
  if (contextLength !== undefined) runtime.contextLength = contextLength;
  if (scoped.maxTokens !== undefined) runtime.maxTokens = scoped.maxTokens;
  if (key) runtime.keySource = key.source;
  return { ok: true, runtime };
}

/**
 * hermes-behaviour §5.1: the resolved provider id (trimmed, lower-cased) only when it has a usable credential —
 * a non-empty key, or a keyless provider (local server, custom endpoint) that the user configured explicitly.
 */
export function detectProvider(config: HermesConfig, env: EnvLike): string | null {
  try {
    const result = resolveRuntime({ config, env });
    if (!result.ok) return null;
    const provider = result.runtime.provider.trim().toLowerCase();
    return provider ? provider : null;
  } catch {
    return null;
  }
}

/** Every provider with a usable credential, for the model picker: keyed catalogue providers, then explicit ones. */
export function credentialProviders(config: HermesConfig, env: EnvLike): string[] {
  const settings = modelSettings(config);
  const explicit = new Set<string>();
  const configured = configuredProvider(settings, config);
  if (configured) explicit.add(configured);
  const fromEnv = clean(env.HERMES_INFERENCE_PROVIDER);
  if (fromEnv && fromEnv.toLowerCase() !== "auto") explicit.add(canonicalProvider(fromEnv, config));

  const candidates: string[] = [];
  for (const info of PROVIDERS) {
    if (info.requiresKey || explicit.has(info.id) || (info.id === "custom" && clean(env.OPENAI_BASE_URL))) candidates.push(info.id);
  }
  for (const name of Object.keys(config.providers)) {
    if (!findProvider(name)) candidates.push(`custom:${name.trim().toLowerCase()}`);
  }
  const found: string[] = [];
  for (const id of candidates) {
    const result = resolveRuntime({ config, env, requestedProvider: id });
    if (result.ok && !found.includes(result.runtime.provider)) found.push(result.runtime.provider);
  }
  return found;
}

/**
 * hermes-behaviour §15.2, deterministic: `provider:model` with a known provider, `custom:<name>:<model>`,
 * a bare provider name (→ its default model), otherwise a model on the current provider.
 */
export function parseModelSelection(value: string, currentProvider: string, config: HermesConfig): { provider: string; model: string } {
  const text = value.trim();
  const current = normaliseProviderId(currentProvider);
  if (text.toLowerCase().startsWith("custom:")) {
    const rest = text.slice("custom:".length);
    const colon = rest.indexOf(":");
    const name = colon >= 0 ? rest.slice(0, colon) : rest;
    const entry = namedEntry(config, name);
    if (entry) {
      const id = `custom:${entry[0].trim().toLowerCase()}`;
      const model = colon >= 0 ? rest.slice(colon + 1).trim() : "";
      return { provider: id, model: model || defaultModelFor(id, config) };
    }
    return { provider: "custom", model: rest.trim() };
  }
  const colon = text.indexOf(":");
  if (colon > 0) {
    const id = knownProvider(text.slice(0, colon), config);
    if (id) {
      const model = text.slice(colon + 1).trim();
      return { provider: id, model: model || defaultModelFor(id, config) };
    }
  }
  const bare = knownProvider(text, config);
  if (bare) return { provider: bare, model: defaultModelFor(bare, config) };
  return { provider: current, model: text };
}

// ---- internals -----------------------------------------------------------------------------------------

type Target = { id: string; name: string; info?: ProviderInfo; entry?: ProviderEntry };

function fail(error: string): ResolveResult {
  return { ok: false, error };
}

function clean(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** Hermes configs write `api_key: ${MY_KEY}`; expand from env (unset → empty → absent). */
function expand(value: string | undefined, env: EnvLike): string | undefined {
  return clean(value?.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? ""));
}

function envFile(env: EnvLike): string {
  return hermesPaths(hermesHome(env)).env;
}

/** The provider model.* settings belong to: model.provider, else inferred from model.base_url / model.api_key. */
function configuredProvider(settings: ModelSettings, config: HermesConfig): string | undefined {
  if (settings.provider) return canonicalProvider(settings.provider, config);
  if (settings.baseUrl) return providerForUrl(settings.baseUrl);
  if (settings.apiKey) return settings.apiKey.startsWith("sk-ant-") ? "anthropic" : "openrouter";
  return undefined;
}

/** The id a provider name resolves to: catalogue id, `custom:<name>` for a providers: entry, else as written (lower-cased). */
function canonicalProvider(value: string, config: HermesConfig): string {
  const id = value.trim().toLowerCase();
  return id.startsWith("custom:") ? id : (knownProvider(id, config) ?? id);
}

function chooseProvider(input: ResolveInput, settings: ModelSettings, configured: string | undefined): { id: string; source: string } | undefined {
  const requested = clean(input.requestedProvider);
  if (requested && requested.toLowerCase() !== "auto") return { id: requested, source: "request" };
  if (settings.provider) return { id: settings.provider, source: "config:model.provider" };
  const fromEnv = clean(input.env.HERMES_INFERENCE_PROVIDER);
  if (fromEnv && fromEnv.toLowerCase() !== "auto") return { id: fromEnv, source: "env:HERMES_INFERENCE_PROVIDER" };
  if (configured) return { id: configured, source: settings.baseUrl ? "config:model.base_url" : "config:model.api_key" };
  for (const id of AUTO_DETECT_ORDER) {
    const keyEnv = findProvider(id)?.keyEnv.find((name) => clean(input.env[name]));
    if (keyEnv) return { id, source: `auto:${keyEnv}` };
  }
  if (clean(input.env.OPENAI_BASE_URL)) return { id: "custom", source: "env:OPENAI_BASE_URL" };
  return undefined;
}

function namedEntry(config: HermesConfig, name: string): [string, ProviderEntry] | undefined {
  const wanted = name.trim().toLowerCase();
  if (!wanted) return undefined;
  return Object.entries(config.providers).find(([key]) => key.trim().toLowerCase() === wanted);
}

function findTarget(rawId: string, config: HermesConfig): Target | { error: string } {
  const id = rawId.trim().toLowerCase();
  if (id.startsWith("custom:")) {
    const found = namedEntry(config, id.slice("custom:".length));
    if (!found) return { error: `No provider named "${id.slice(7)}" under providers: in config.yaml. Add it there (base_url, api_key) or pick another provider.` };
    return { id, name: found[0], entry: found[1] };
  }
  const info = findProvider(id);
  if (info) return { id: info.id, name: info.id, info, entry: namedEntry(config, info.id)?.[1] ?? namedEntry(config, id)?.[1] };
  const named = namedEntry(config, id);
  if (named) return { id: `custom:${id}`, name: named[0], entry: named[1] };
  const known = PROVIDERS.map((p) => p.id).join(", ");
  return { error: `Unknown provider "${rawId.trim()}". Use one of ${known}, define it under providers: in config.yaml, or ${SETUP_HINT}.` };
}

function findKey(configKey: string | undefined, entry: ProviderEntry | undefined, info: ProviderInfo | undefined, env: EnvLike): { value: string; source: string } | undefined {
  if (configKey) return { value: configKey, source: "config:model.api_key" };
  const entryKey = expand(entry?.api_key, env);
  if (entryKey) return { value: entryKey, source: "config:providers.api_key" };
  const entryEnv = clean(entry?.api_key_env) ?? clean(entry?.key_env);
  const fromEntryEnv = entryEnv ? clean(env[entryEnv]) : undefined;
  if (entryEnv && fromEntryEnv) return { value: fromEntryEnv, source: entryEnv };
  for (const name of info?.keyEnv ?? []) {
    const value = clean(env[name]);
    if (value) return { value, source: name };
  }
  return undefined;
}

function toApiMode(value: string): RuntimeApiMode | undefined {
  const mode = value.trim().toLowerCase();
  return mode === "chat_completions" || mode === "anthropic_messages" ? mode : undefined;
}

/** Named/custom endpoints ending in /anthropic speak the Messages API (Hermes detects them the same way). */
function inferApiMode(info: ProviderInfo | undefined, baseUrl: string): RuntimeApiMode {
  if (info && info.id !== "custom") return info.apiMode;
  return /\/anthropic\/?$/i.test(baseUrl) ? "anthropic_messages" : "chat_completions";
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1", "0.0.0.0"]);

/** A configured base_url on a known provider's host means that provider; anything else is `custom`. */
function providerForUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "custom";
  }
  const host = LOOPBACK.has(parsed.hostname) ? "loopback" : parsed.hostname;
  for (const info of PROVIDERS) {
    if (!info.baseUrl) continue;
    const known = new URL(info.baseUrl);
    const knownHost = LOOPBACK.has(known.hostname) ? "loopback" : known.hostname;
    if (knownHost === host && (!info.local || known.port === parsed.port)) return info.id;
  }
  return "custom";
}

function knownProvider(name: string, config: HermesConfig): string | undefined {
  const info = findProvider(name);
  if (info) return info.id;
  const named = namedEntry(config, name);
  return named ? `custom:${named[0].trim().toLowerCase()}` : undefined;
}

function defaultModelFor(id: string, config: HermesConfig): string {
  const settings = modelSettings(config);
  const entry = id.startsWith("custom:") ? namedEntry(config, id.slice(7))?.[1] : namedEntry(config, id)?.[1];
  const fromEntry = clean(entry?.default_model) ?? clean(entry?.model) ?? entry?.models?.[0];
  if (fromEntry) return fromEntry;
  if (settings.default && configuredProvider(settings, config) === id) return settings.default;
  return findProvider(id)?.defaultModel ?? "";
}
