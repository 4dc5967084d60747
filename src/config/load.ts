// Reads config.yaml with Bun.YAML and validates it. Never throws: a broken file becomes a ConfigError that
// names the file, the key and what is expected, because the user has to fix it by hand.
import { readFileSync } from "node:fs";
import type { z } from "zod";
import { configSchema, type HermesConfig } from "./schema.ts";

export type { HermesConfig } from "./schema.ts";

export type ConfigErrorCode = "config_unreadable" | "config_yaml_syntax" | "config_invalid";

export type ConfigError = {
  code: ConfigErrorCode;
  file: string;
  /** One paragraph for the user: file, key path, what is expected, the line when known. */
  message: string;
  /** What to do about it. */
  fix: string;
  /** Dotted key path of the first problem, e.g. "model.context_length" or "providers.local.models[0]". */
  keyPath?: string;
  /** 1-based line in the file, when it could be located. */
  line?: number;
};

export type LoadConfigResult = { ok: true; config: HermesConfig } | { ok: false; error: ConfigError };

export type ModelSettings = {
  default?: string;
  /** Trimmed; undefined when unset or "auto" (auto-detect). */
  provider?: string;
  baseUrl?: string;
  apiKey?: string;
  apiMode?: string;
  contextLength?: number;
  maxTokens?: number;
};

/** The built-in defaults (what a missing config.yaml means). */
export function defaultConfig(): HermesConfig {
  const parsed = configSchema.safeParse({});
  if (!parsed.success) throw new Error("hermes-acp bug: the config defaults do not validate");
  return parsed.data;
}

export function loadConfig(path: string): LoadConfigResult {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : String(error);
    if (code === "ENOENT") return { ok: true, config: defaultConfig() };
    return fail({
      code: "config_unreadable",
      file: path,
      message: `Could not read the Hermes config file ${path} (${code}).`,
      fix: `Check that ${path} is a readable file (chmod 600 ${path}), or move it aside to start from defaults.`,
    });
  }
  return parseConfigText(text, path);
}

/** Validates config text; `file` is only used in messages. */
export function parseConfigText(text: string, file: string): LoadConfigResult {
  let raw: unknown;
  try {
    raw = Bun.YAML.parse(text);
  } catch (error) {
    const located = locateSyntaxError(text);
    const reason = located?.reason ?? (error instanceof Error ? error.message.replace(/^YAML Parse error:\s*/, "") : String(error));
    const at = located?.line ? ` at line ${located.line}` : "";
    return fail({
      code: "config_yaml_syntax",
      file,
      line: located?.line,
      message: `The Hermes config file ${file} is not valid YAML${at}: ${reason}.`,
      fix: `Fix the YAML syntax${at} in ${file} (check indentation, colons and closing brackets; use spaces, not tabs).`,
    });
  }
  const parsed = configSchema.safeParse(raw ?? {});
  if (parsed.success) return { ok: true, config: parsed.data };
  return fail(describeIssues(parsed.error.issues, raw, text, file));
}

function fail(error: ConfigError): LoadConfigResult {
  return { ok: false, error };
}

/** `model:` as a string or a mapping, normalised. */
export function modelSettings(config: HermesConfig): ModelSettings {
  const model = config.model;
  if (model === undefined) return {};
  if (typeof model === "string") return { default: clean(model) };
  const provider = clean(model.provider);
  return {
    default: clean(model.default) ?? clean(model.model) ?? clean(model.name),
    provider: provider && provider.toLowerCase() !== "auto" ? provider : undefined,
    baseUrl: clean(model.base_url),
    apiKey: clean(model.api_key),
    apiMode: clean(model.api_mode),
    contextLength: model.context_length,
    maxTokens: model.max_tokens,
  };
}

function clean(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

// ---- error wording -------------------------------------------------------------------------------------

type Issue = z.core.$ZodIssue;
type Path = (string | number)[];

const TYPE_WORDS: Record<string, string> = {
  string: "text",
  number: "a number",
  boolean: "true or false",
  object: "a mapping (key: value lines)",
  array: "a list",
  record: "a mapping (key: value lines)",
};

function describeIssues(issues: readonly Issue[], raw: unknown, text: string, file: string): ConfigError {
  const first = issues[0];
  const { path, expected } = first ? deepest(first, []) : { path: [], expected: "valid" };
  const keyPath = formatPath(path);
  const line = path.length > 0 ? locateKey(text, path) : undefined;
  const value = valueAt(raw, path);
  const got = describeValue(value, path);
  const at = line ? ` (line ${line})` : "";
  const more = issues.length > 1 ? ` There ${issues.length === 2 ? "is 1 more problem" : `are ${issues.length - 1} more problems`} after this one.` : "";
  const subject = keyPath ? `"${keyPath}"${at} must be ${expected}` : `the file must be ${expected}`;
  return {
    code: "config_invalid",
    file,
    keyPath: keyPath || undefined,
    line,
    message: `In the Hermes config file ${file}, ${subject}, but it is ${got}.${more}`,
    fix: !keyPath
      ? `Rewrite ${file} as YAML key: value lines (e.g. "model: anthropic/claude-sonnet-4.6"), or move it aside.`
      : value === undefined || value === null
        ? `Set "${keyPath}" in ${file} to ${expected}.`
        : `Edit "${keyPath}" in ${file} to be ${expected}, or delete that key to use the default.`,
  };
}

/** Unions report each branch; follow the branch that got furthest into the value (the user's intent). */
function deepest(issue: Issue, prefix: Path): { path: Path; expected: string } {
  const path: Path = [...prefix, ...issue.path.filter((p): p is string | number => typeof p !== "symbol")];
  if (issue.code === "invalid_union") {
    let best: Issue | undefined;
    for (const branch of issue.errors) {
      const candidate = branch[0];
      if (candidate && candidate.path.length > 0 && (!best || candidate.path.length > best.path.length)) best = candidate;
    }
    if (best) return deepest(best, path);
  }
  return { path, expected: expectedWords(issue) };
}

function expectedWords(issue: Issue): string {
  if (!issue.message.startsWith("Invalid") && !issue.message.startsWith("Too ")) return issue.message;
  if (issue.code === "invalid_type") return TYPE_WORDS[issue.expected] ?? issue.expected;
  if (issue.code === "invalid_value") return `one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
  return "a valid value";
}

function formatPath(path: Path): string {
  return path.reduce<string>((out, part) => (typeof part === "number" ? `${out}[${part}]` : out ? `${out}.${part}` : part), "");
}

function valueAt(raw: unknown, path: Path): unknown {
  let current = raw;
  for (const part of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = Reflect.get(current, part);
  }
  return current;
}

const SECRET_KEY = /key|token|secret|password|auth|header|env/i;

/** What the user wrote, without echoing anything that might be a credential. */
function describeValue(value: unknown, path: Path): string {
  if (value === undefined) return "missing";
  if (value === null) return "empty";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  const secret = path.some((part) => typeof part === "string" && SECRET_KEY.test(part));
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") return secret ? "a number" : String(value);
  if (typeof value === "string" && !secret && value.length <= 40) return `the text ${JSON.stringify(value)}`;
  return "text";
}

// Bun.YAML reports neither line nor column; the `yaml` package does. It is loaded only on this error path
// so the serve path never pays for it.
type YamlModule = typeof import("yaml");
function yamlModule(): YamlModule {
  return require("yaml");
}

function locateSyntaxError(text: string): { line?: number; reason: string } | undefined {
  try {
    const doc = yamlModule().parseDocument(text);
    const error = doc.errors[0];
    if (!error) return undefined;
    const reason = (error.message.split(" at line ")[0] ?? error.message).trim();
    return { line: error.linePos?.[0]?.line, reason };
  } catch {
    return undefined;
  }
}

function locateKey(text: string, path: Path): number | undefined {
  try {
    const yaml = yamlModule();
    const lineCounter = new yaml.LineCounter();
    const doc = yaml.parseDocument(text, { lineCounter });
    for (let depth = path.length; depth > 0; depth--) {
      const node = doc.getIn(path.slice(0, depth), true);
      if (yaml.isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
    }
  } catch {
    // Locating is best effort; the message stands without a line.
  }
  return undefined;
}
