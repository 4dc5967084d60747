// The parts of Hermes' config.yaml that hermes-acp reads. Every object is loose: users share this file with
// Hermes, so unknown keys are kept and ignored, never rejected. YAML's empty value (`key:`) is null and is
// treated as "not set" everywhere, because Hermes' own config template is full of them.
//
// Written with zod/mini: this schema is built on the session/new path, and mini's schemas (no methods bound
// per instance) build in ~3 ms where classic zod took ~4.5, and parse faster too (measured in compiled probes).
import * as z from "zod/mini";

function nullToUndefined(value: unknown): unknown {
  return value === null ? undefined : value;
}

/** `schema` after `prepare` has adjusted the raw value. */
function preprocess<T extends z.ZodMiniType>(prepare: (value: unknown) => unknown, schema: T) {
  return z.pipe(z.transform(prepare), schema);
}

/** Optional, with `key:` (null) meaning unset. */
function opt<T extends z.ZodMiniType>(schema: T) {
  return preprocess(nullToUndefined, z.optional(schema));
}

/** A section of settings: absent, or `key:` alone, means all of its defaults. */
function section<T extends z.ZodMiniType>(schema: T) {
  // The cast only tells TypeScript what parsing checks anyway: `{}` is a valid section (every key has a default).
  return preprocess(nullToUndefined, z.prefault(schema, {} as z.input<T>));
}

/** Numbers may be written quoted ("131072") — accept those, reject words. */
const num = preprocess(
  (value) => (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value),
  z.number({ error: "a number" }),
);
const positiveInt = z.pipe(num, z.number().check(z.int("a whole number"), z.positive("a positive whole number")));
const count = z.pipe(num, z.number().check(z.int(), z.minimum(0, "0 or more")));
const ratio = z.pipe(num, z.number().check(z.minimum(0, "a number from 0 to 1"), z.maximum(1, "a number from 0 to 1")));
const str = z.string({ error: "text" });
/** Env/header values: YAML turns `PORT: 3000` into a number; both mean the string. */
const scalarString = z.pipe(z.union([z.string(), z.number(), z.boolean()], { error: "text" }), z.transform(String));
const stringList = z.array(scalarString, { error: "a list of text values" });
const stringMap = z.record(z.string(), scalarString, { error: "a mapping of names to text values" });
const bool = z.boolean({ error: "true or false" });

// Schemas are immutable: one instance per kind of optional field, shared by every field of that kind (built
// per field, they cost ~0.5 ms more).
const optStr = opt(str);
const optPositiveInt = opt(positiveInt);
const optNum = opt(num);
const optStringList = opt(stringList);
const optStringMap = opt(stringMap);
const optBool = opt(bool);

export const API_MODES = ["chat_completions", "anthropic_messages", "codex_responses", "codex_app_server", "bedrock_converse"] as const;

export const modelMappingSchema = z.looseObject({
  default: optStr,
  model: optStr,
  name: optStr,
  provider: optStr,
  base_url: optStr,
  api_key: optStr,
  /** Kept as text: Hermes knows more modes than we run; resolution reports unsupported ones. */
  api_mode: optStr,
  context_length: optPositiveInt,
  max_tokens: optPositiveInt,
});

export const modelSchema = z.union([z.string(), modelMappingSchema], {
  error: "a model name, or a mapping with keys such as default, provider, base_url",
});

export const providerEntrySchema = z.looseObject({
  name: optStr,
  base_url: optStr,
  api_key: optStr,
  api_key_env: optStr,
  /** Hermes' spelling of api_key_env. */
  key_env: optStr,
  api_mode: optStr,
  /** Hermes allows a list of names or a mapping of name → per-model settings; both become names. */
  models: opt(
    z.pipe(
      z.union([stringList, z.record(z.string(), z.unknown())], { error: "a list of model names" }),
      z.transform((models) => (Array.isArray(models) ? models : Object.keys(models))),
    ),
  ),
  default_model: optStr,
  model: optStr,
  context_length: optPositiveInt,
});
export type ProviderEntry = z.infer<typeof providerEntrySchema>;

const namedProviderSchema = z.extend(providerEntrySchema, { name: z.string({ error: "text (the provider's name)" }) });

/** `providers:` as a mapping (name → entry) or a list of entries with `name`; both become a mapping. */
const providersSchema = z.pipe(
  z.union([z.record(z.string(), preprocess((v) => v ?? {}, providerEntrySchema)), z.array(namedProviderSchema)], {
    error: "a mapping of provider names to settings (base_url, api_key, …)",
  }),
  z.transform((value): Record<string, ProviderEntry> =>
    Array.isArray(value) ? Object.fromEntries(value.map((entry) => [entry.name, entry])) : value,
  ),
);

const fallbackSchema = z.array(
  z.union([z.string(), z.looseObject({ provider: optStr, model: optStr })], {
    error: "a provider name or a mapping with provider and model",
  }),
  { error: "a list" },
);

const approvalsSchema = z.looseObject({
  // YAML 1.1 readers (PyYAML) turn a bare `off` into false; accept what Hermes users wrote.
  mode: preprocess((v) => (v === false ? "off" : nullToUndefined(v)), z._default(str, "manual")),
  timeout: preprocess(nullToUndefined, z._default(num, 60)),
});

const mcpServerSchema = z.looseObject({
  command: optStr,
  args: optStringList,
  env: optStringMap,
  url: optStr,
  headers: optStringMap,
  enabled: optBool,
  timeout: optNum,
  connect_timeout: optNum,
});
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

const compressionSchema = z.looseObject({
  enabled: preprocess(nullToUndefined, z._default(bool, true)),
  threshold: preprocess(nullToUndefined, z._default(ratio, 0.5)),
  target_ratio: preprocess(nullToUndefined, z._default(ratio, 0.2)),
  protect_first_n: preprocess(nullToUndefined, z._default(count, 3)),
  protect_last_n: preprocess(nullToUndefined, z._default(count, 20)),
  /** Hermes' older names for auxiliary.compression's model and provider. */
  summary_model: optStr,
  summary_provider: optStr,
});

/** A side task's own model (Hermes' `auxiliary:`); only `compression` is used here. */
const auxiliaryTaskSchema = z.looseObject({ provider: optStr, model: optStr });
const auxiliarySchema = z.looseObject({ compression: opt(auxiliaryTaskSchema) });

const agentSchema = z.looseObject({
  max_turns: preprocess(nullToUndefined, z._default(positiveInt, 90)),
});

/** Hermes' terminal settings; only the default command timeout applies here (commands run in the session cwd). */
const terminalSchema = z.looseObject({ timeout: optNum });

/** hermes-acp's own section; Hermes ignores it. */
const acpSchema = z.looseObject({
  /** Default edit-approval mode for new sessions (default / accept_edits / dont_ask). */
  default_mode: optStr,
  /** Skip connecting the MCP servers configured in config.yaml. */
  skip_configured_mcp: optBool,
  /** Hermes' turn keepalive: seconds of silence before an empty chunk (0 = off), and when to give up. */
  turn_keepalive_interval_seconds: optNum,
  turn_keepalive_max_silent_seconds: optNum,
  /** The older Hermes name of turn_keepalive_interval_seconds. */
  keepalive_interval_s: optNum,
});

/** Hermes accepts `max_turns` at the top level too; fold it into `agent` before validation. */
function hoistMaxTurns(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw) || !("max_turns" in raw)) return raw;
  const agent = "agent" in raw ? raw.agent : undefined;
  if (agent !== undefined && agent !== null && (typeof agent !== "object" || Array.isArray(agent))) return raw;
  if (agent && "max_turns" in agent && agent.max_turns != null) return raw;
  return { ...raw, agent: { ...agent, max_turns: raw.max_turns } };
}

export const configSchema = preprocess(
  hoistMaxTurns,
  z.pipe(
    z.looseObject(
      {
        model: opt(modelSchema),
        providers: preprocess(nullToUndefined, z._default(providersSchema, {})),
        /** Hermes' older list form of named endpoints; merged into `providers` (which wins). */
        custom_providers: opt(z.array(namedProviderSchema, { error: "a list of providers with a name" })),
        fallback_providers: preprocess(nullToUndefined, z._default(fallbackSchema, [])),
        approvals: section(approvalsSchema),
        command_allowlist: preprocess(nullToUndefined, z._default(stringList, [])),
        mcp_servers: preprocess(
          nullToUndefined,
          z._default(z.record(z.string(), preprocess((v) => v ?? {}, mcpServerSchema), { error: "a mapping of server names to settings" }), {}),
        ),
        compression: section(compressionSchema),
        auxiliary: opt(auxiliarySchema),
        terminal: opt(terminalSchema),
        agent: section(agentSchema),
        acp: section(acpSchema),
      },
      { error: "a mapping of settings (key: value lines)" },
    ),
    z.transform((config) => {
      const legacy = config.custom_providers ?? [];
      if (legacy.length === 0) return config;
      const fromList = Object.fromEntries(legacy.map((entry) => [entry.name, entry]));
      return { ...config, providers: { ...fromList, ...config.providers } };
    }),
  ),
);

export type HermesConfig = z.output<typeof configSchema>;
