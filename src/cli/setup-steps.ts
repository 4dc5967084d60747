// The pure half of `--setup`: answers + the current .env / config.yaml text in, the new text out. The files are
// shared with Hermes and edited by hand, so every other line, key and comment must survive the rewrite.
import { parse as parseDotEnv } from "dotenv";
import { isMap, isScalar, parseDocument } from "yaml";
import type { EnvLike } from "../config/paths.ts";
import { PROVIDERS, findProvider, normaliseProviderId, type ProviderInfo } from "../llm/providers.ts";
import type { Mode } from "../approvals/edit-policy.ts";
import { MODES, isMode } from "../session/modes.ts";

export type SetupAnswers = {
  /** Catalogue id or alias (`openrouter`, `anthropic`, `custom`, …). */
  provider: string;
  /** Written to .env under the provider's key variable; optional for local and custom endpoints. */
  apiKey?: string;
  /** Written to model.base_url; required for `custom`, optional override for the others. */
  baseUrl?: string;
  model: string;
  /** Default approval mode for new sessions, written to acp.default_mode; left as it is when absent. */
  mode?: string;
};

export type SetupFiles = { envText: string; configText: string };

export type SetupPlan = {
  ok: true;
  files: SetupFiles;
  provider: ProviderInfo;
  /** The .env variable the key went to, when a key was given. */
  keyEnv?: string;
  /** What was changed besides the answers themselves (stale provider-specific keys removed), for the user. */
  notes: string[];
};

export type SetupResult = SetupPlan | { ok: false; error: string };

/** `custom` has no default endpoint; local servers have one the user may want to change. */
export function needsBaseUrl(provider: ProviderInfo): "required" | "optional" | "no" {
  if (!provider.baseUrl) return "required";
  return provider.local ? "optional" : "no";
}

/** The provider's key as already configured in the .env text or the environment, if any. */
export function existingKey(provider: ProviderInfo, envText: string, env: EnvLike = {}): string | undefined {
  const fromFile = parseDotEnv(envText);
  for (const name of provider.keyEnv) {
    const value = fromFile[name]?.trim() || env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** The provider and model config.yaml names now (the wizard's defaults); empty when unset or unreadable. */
export function currentChoice(configText: string): { provider?: string; model?: string } {
  const doc = parseDocument(configText);
  if (doc.errors.length > 0) return {};
  const model = doc.get("model", true);
  if (isScalar(model) && typeof model.value === "string") return { model: model.value };
  if (!isMap(model)) return {};
  const provider = scalarText(model.get("provider", true));
  const name = scalarText(model.get("default", true)) ?? scalarText(model.get("model", true)) ?? scalarText(model.get("name", true));
  return { ...(provider ? { provider: normaliseProviderId(provider) } : {}), ...(name ? { model: name } : {}) };
}

/** config.yaml already holds model.api_key for this same provider (setup keeps it then). */
function configHasKeyFor(configText: string, provider: ProviderInfo): boolean {
  const doc = parseDocument(configText);
  if (doc.errors.length > 0) return false;
  const model = doc.get("model", true);
  if (!isMap(model)) return false;
  const configured = scalarText(model.get("provider", true));
  const key = scalarText(model.get("api_key", true))?.trim();
  return Boolean(key) && configured !== undefined && normaliseProviderId(configured) === provider.id;
}

/**
 * Checks the answers and names what is wrong in words for the user. A key already in .env (or `env`) satisfies
 * a provider that needs one, so setup can switch models without re-entering it.
 */
export function validateAnswers(
  answers: SetupAnswers,
  envText = "",
  env: EnvLike = {},
  configText = "",
): { ok: true; provider: ProviderInfo } | { ok: false; error: string } {
  const provider = findProvider(answers.provider);
  if (!provider) return { ok: false, error: `Unknown provider "${answers.provider}". Use one of: ${knownIds()}.` };
  const key = answers.apiKey?.trim();
  if (!key && provider.requiresKey && !existingKey(provider, envText, env) && !configHasKeyFor(configText, provider)) {
    return { ok: false, error: `Provider "${provider.id}" (${provider.label}) needs an API key (--api-key or ${provider.keyEnv[0] ?? "its key variable"}).` };
  }
  if (key && /[\r\n]/.test(key)) return { ok: false, error: "The API key must be a single line." };
  if (key && provider.keyEnv.length === 0) return { ok: false, error: `Provider "${provider.id}" does not use an API key; leave it empty.` };
  const baseUrl = answers.baseUrl?.trim();
  if (!baseUrl && needsBaseUrl(provider) === "required") return { ok: false, error: `Provider "${provider.id}" needs a base URL (--base-url), e.g. http://127.0.0.1:8000/v1.` };
  if (baseUrl && !isHttpUrl(baseUrl)) return { ok: false, error: `"${baseUrl}" is not an http(s) URL.` };
  if (!answers.model.trim() || /[\r\n]/.test(answers.model)) return { ok: false, error: "Choose a model (--model)." };
  const mode = validateMode(answers.mode);
  if (mode && !mode.ok) return mode;
  return { ok: true, provider };
}

export function applySetup(answers: SetupAnswers, current: SetupFiles, env: EnvLike = {}): SetupResult {
  const valid = validateAnswers(answers, current.envText, env, current.configText);
  if (!valid.ok) return valid;
  const provider = valid.provider;
  const key = answers.apiKey?.trim();
  const keyEnv = key ? provider.keyEnv[0] : undefined;
  const config = setModelConfig(current.configText, {
    provider: provider.id,
    model: answers.model.trim(),
    baseUrl: answers.baseUrl?.trim() || undefined,
    newKey: Boolean(key),
  });
  if (!config.ok) return config;
  let configText = config.text;
  if (answers.mode !== undefined) {
    const withMode = setDefaultMode(configText, answers.mode);
    if (!withMode.ok) return withMode;
    configText = withMode.text;
  }
  const envText = key && keyEnv ? setEnvVar(current.envText, keyEnv, key) : current.envText;
  const plan: SetupPlan = { ok: true, files: { envText, configText }, provider, notes: config.notes };
  if (keyEnv) plan.keyEnv = keyEnv;
  return plan;
}

// ---- .env ------------------------------------------------------------------------------------------------

const ASSIGNMENT = /^(\s*(?:export\s+)?)([A-Za-z_][A-Za-z0-9_.-]*)\s*=/;

/**
 * Sets NAME=value: the first assignment of NAME is replaced in place, later ones are dropped (dotenv lets the
 * last one win, which would silently undo the change); without one, the line is appended. Everything else stays.
 */
export function setEnvVar(envText: string, name: string, value: string): string {
  const newline = envText.includes("\r\n") ? "\r\n" : "\n";
  const lines = envText.length ? envText.split(/\r?\n/) : [];
  const trailing = lines.length > 0 && lines[lines.length - 1] === "";
  if (trailing) lines.pop();
  const out: string[] = [];
  let replaced = false;
  for (const line of lines) {
    const match = ASSIGNMENT.exec(line);
    if (match?.[2] === name) {
      if (!replaced) out.push(`${match[1] ?? ""}${name}=${quoteEnvValue(value)}`);
      replaced = true;
      continue;
    }
    out.push(line);
  }
  if (!replaced) out.push(`${name}=${quoteEnvValue(value)}`);
  return out.join(newline) + newline;
}

/** Bare when dotenv would read it back unchanged; otherwise quoted so `#`, spaces and quotes survive. */
export function quoteEnvValue(value: string): string {
  if (/^[A-Za-z0-9_\-.:/+=@~%,]*$/.test(value)) return value;
  if (!value.includes("'")) return `'${value}'`;
  if (!value.includes('"')) return `"${value}"`;
  return `\`${value}\``;
}

// ---- config.yaml -----------------------------------------------------------------------------------------

type ModelChoice = { provider: string; model: string; baseUrl?: string; newKey: boolean };

/** config.yaml as an editable Document (comments kept), or why it cannot be edited safely. */
function editableConfig(configText: string): { ok: true; doc: ReturnType<typeof parseDocument> } | { ok: false; error: string } {
  const doc = parseDocument(configText);
  const syntax = doc.errors[0];
  if (syntax) {
    const line = syntax.linePos?.[0]?.line;
    return { ok: false, error: `config.yaml is not valid YAML${line ? ` (line ${line})` : ""}; fix it or move it aside, then run setup again.` };
  }
  if (doc.contents !== null && !isMap(doc.contents)) return { ok: false, error: "config.yaml is not a mapping of settings; fix it or move it aside." };
  return { ok: true, doc };
}

/**
 * Sets model.provider / model.default / model.base_url through the `yaml` Document API. Keys that belong to the
 * previous provider (base_url, api_key, api_mode) are removed when they would now point the new provider at the
 * old endpoint or key; a config `api_key` would also shadow the key just written to .env.
 */
export function setModelConfig(configText: string, choice: ModelChoice): { ok: true; text: string; notes: string[] } | { ok: false; error: string } {
  const parsed = editableConfig(configText);
  if (!parsed.ok) return parsed;
  const doc = parsed.doc;

  const notes: string[] = [];
  const current = doc.get("model", true);
  if (!isMap(current)) {
    // Absent, empty, or the short form `model: name`: the mapping form replaces it (it can hold the provider).
    const fresh: Record<string, string> = { provider: choice.provider, default: choice.model };
    if (choice.baseUrl) fresh.base_url = choice.baseUrl;
    doc.set("model", doc.createNode(fresh));
    return { ok: true, text: doc.toString({ lineWidth: 0 }), notes };
  }

  const previous = scalarText(current.get("provider", true));
  const changed = previous === undefined || normaliseProviderId(previous) !== choice.provider;
  current.set("provider", choice.provider);
  current.set("default", choice.model);
  // `model:` / `name:` are Hermes aliases of `default`; a stale one would only confuse the next reader.
  for (const alias of ["model", "name"]) {
    if (current.has(alias)) {
      current.delete(alias);
      notes.push(`removed model.${alias} (replaced by model.default)`);
    }
  }
  if (choice.baseUrl) current.set("base_url", choice.baseUrl);
  else if (current.has("base_url")) {
    current.delete("base_url");
    notes.push("removed model.base_url (it pointed at the previous endpoint)");
  }
  if (current.has("api_key") && (changed || choice.newKey)) {
    current.delete("api_key");
    notes.push("removed model.api_key (the key now lives in .env)");
  }
  if (changed && current.has("api_mode")) {
    current.delete("api_mode");
    notes.push("removed model.api_mode (it belonged to the previous provider)");
  }
  return { ok: true, text: doc.toString({ lineWidth: 0 }), notes };
}

// ---- acp.default_mode -------------------------------------------------------------------------------------

/** Undefined when no mode was given; otherwise the mode id, or an error naming the valid ones. */
export function validateMode(mode: string | undefined): { ok: true; mode: Mode } | { ok: false; error: string } | undefined {
  if (mode === undefined) return undefined;
  const id = mode.trim();
  if (isMode(id)) return { ok: true, mode: id };
  const known = MODES.map((m) => `${m.id} (${m.name})`).join(", ");
  return { ok: false, error: `Unknown approval mode "${id}". Use one of: ${known}.` };
}

/** acp.default_mode as config.yaml holds it, when it names a mode (the wizard's default). */
export function currentMode(configText: string): Mode | undefined {
  const doc = parseDocument(configText);
  if (doc.errors.length > 0) return undefined;
  const value = scalarText(doc.getIn(["acp", "default_mode"], true));
  const id = value?.trim();
  return isMode(id) ? id : undefined;
}

/** Sets acp.default_mode (creating the `acp:` mapping if needed) through the Document API, so comments survive. */
export function setDefaultMode(configText: string, mode: string): { ok: true; text: string } | { ok: false; error: string } {
  const valid = validateMode(mode);
  if (valid && !valid.ok) return valid;
  const parsed = editableConfig(configText);
  if (!parsed.ok) return parsed;
  const doc = parsed.doc;
  const acp = doc.get("acp", true);
  // `acp:` with nothing after it is YAML null: the section is empty, so a fresh mapping replaces it.
  if (acp === undefined || acp === null || (isScalar(acp) && acp.value === null)) {
    const section = doc.createNode({ default_mode: mode.trim() });
    if (isScalar(acp) && acp.comment) section.commentBefore = acp.comment; // keep `acp: # note`
    doc.set("acp", section);
  } else if (isMap(acp)) {
    acp.set("default_mode", mode.trim());
  } else {
    return { ok: false, error: "config.yaml's `acp:` is not a mapping; fix it (e.g. `acp:` then `  default_mode: default`) and run setup again." };
  }
  return { ok: true, text: doc.toString({ lineWidth: 0 }) };
}

// ---- editor snippets -------------------------------------------------------------------------------------

/** What to paste into Zed's settings.json and JetBrains' ~/.jetbrains/acp.json to launch this binary. */
export function editorSnippets(command: string, args: readonly string[] = []): { zed: string; jetbrains: string } {
  const server = { command, args: [...args] };
  return {
    zed: JSON.stringify({ agent_servers: { Hermes: { type: "custom", ...server } } }, null, 2),
    jetbrains: JSON.stringify({ agent_servers: { Hermes: server } }, null, 2),
  };
}

function scalarText(node: unknown): string | undefined {
  if (isScalar(node) && typeof node.value === "string") return node.value;
  return undefined;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

function knownIds(): string {
  return PROVIDERS.map((p) => p.id).join(", ");
}
