// The providers hermes-acp can talk to, with Hermes' ids, env keys and default endpoints. The model lists are
// a curated fallback for the picker when the provider's own listing is unavailable, not a limit.

export type RuntimeApiMode = "chat_completions" | "anthropic_messages";

export type ProviderInfo = {
  id: string;
  label: string;
  /** Default endpoint; empty for `custom`, whose endpoint must be configured. */
  baseUrl: string;
  /** Env variables holding the API key, in priority order. */
  keyEnv: readonly string[];
  /** Env variable that overrides the endpoint. */
  baseUrlEnv?: string;
  apiMode: RuntimeApiMode;
  /** Used when neither the request nor config.yaml names a model; absent where only the user can know. */
  defaultModel?: string;
  models: readonly string[];
  /** Local servers and `custom` run without a key. */
  requiresKey: boolean;
  /** Runs on this machine: only used when explicitly chosen, never auto-detected. */
  local: boolean;
  aliases: readonly string[];
};

export const PROVIDERS: readonly ProviderInfo[] = [
  {
    id: "openrouter",
    label: "OpenRouter",
    baseUrl: "https://openrouter.ai/api/v1",
    keyEnv: ["OPENROUTER_API_KEY"],
    baseUrlEnv: "OPENROUTER_BASE_URL",
    apiMode: "chat_completions",
    defaultModel: "anthropic/claude-opus-4.6",
    models: [
      "anthropic/claude-opus-4.6",
      "anthropic/claude-sonnet-4.6",
      "openai/gpt-5.4",
      "google/gemini-3-pro-preview",
      "deepseek/deepseek-v4-pro",
      "moonshotai/kimi-k2.6",
      "nousresearch/hermes-4-405b",
    ],
    requiresKey: true,
    local: false,
    aliases: ["open-router", "or"],
  },
  {
    id: "nous",
    label: "Nous Portal",
    baseUrl: "https://inference-api.nousresearch.com/v1",
    keyEnv: ["NOUS_API_KEY"],
    baseUrlEnv: "NOUS_BASE_URL",
    apiMode: "chat_completions",
    defaultModel: "moonshotai/kimi-k2.6",
    models: [
      "moonshotai/kimi-k2.6",
      "anthropic/claude-opus-4-6",
      "anthropic/claude-sonnet-4-6",
      "openai/gpt-5.5",
      "google/gemini-3-pro-preview",
      "nousresearch/hermes-4-405b",
    ],
    requiresKey: true,
    local: false,
    aliases: ["nous-api", "nous-portal", "nousresearch"],
  },
  {
    id: "anthropic",
    label: "Anthropic",
    baseUrl: "https://api.anthropic.com",
    keyEnv: ["ANTHROPIC_API_KEY", "ANTHROPIC_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"],
    baseUrlEnv: "ANTHROPIC_BASE_URL",
    apiMode: "anthropic_messages",
    defaultModel: "claude-sonnet-4-6",
    models: ["claude-sonnet-4-6", "claude-opus-4-6", "claude-opus-4-7", "claude-haiku-4-5"],
    requiresKey: true,
    local: false,
    aliases: ["claude"],
  },
  {
    id: "openai-api",
    label: "OpenAI",
    baseUrl: "https://api.openai.com/v1",
    keyEnv: ["OPENAI_API_KEY"],
    baseUrlEnv: "OPENAI_BASE_URL",
    apiMode: "chat_completions",
    defaultModel: "gpt-5.4",
    models: ["gpt-5.4", "gpt-5.4-mini", "gpt-5.3-codex", "gpt-4.1"],
    requiresKey: true,
    local: false,
    aliases: ["openai", "openai_api"],
  },
  {
    id: "gemini",
    label: "Google AI Studio",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta/openai",
    keyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    baseUrlEnv: "GEMINI_BASE_URL",
    apiMode: "chat_completions",
    defaultModel: "gemini-3-pro-preview",
    models: ["gemini-3-pro-preview", "gemini-3-flash-preview", "gemini-2.5-pro", "gemini-2.5-flash"],
    requiresKey: true,
    local: false,
    aliases: ["google", "google-ai-studio", "google-gemini", "aistudio"],
  },
  {
    id: "deepseek",
    label: "DeepSeek",
    baseUrl: "https://api.deepseek.com/v1",
    keyEnv: ["DEEPSEEK_API_KEY"],
    baseUrlEnv: "DEEPSEEK_BASE_URL",
    apiMode: "chat_completions",
    defaultModel: "deepseek-chat",
    models: ["deepseek-chat", "deepseek-reasoner", "deepseek-v4-pro", "deepseek-v4-flash"],
    requiresKey: true,
    local: false,
    aliases: ["deep-seek"],
  },
  {
    id: "xai",
    label: "xAI",
    baseUrl: "https://api.x.ai/v1",
    keyEnv: ["XAI_API_KEY"],
    baseUrlEnv: "XAI_BASE_URL",
    apiMode: "chat_completions",
    defaultModel: "grok-4-1-fast-reasoning",
    models: ["grok-4-1-fast-reasoning", "grok-4.20-reasoning", "grok-code-fast-1"],
    requiresKey: true,
    local: false,
    aliases: ["x-ai", "grok"],
  },
  {
    id: "ollama",
    label: "Ollama",
    baseUrl: "http://127.0.0.1:11434/v1",
    keyEnv: [],
    baseUrlEnv: "OLLAMA_BASE_URL",
    apiMode: "chat_completions",
    defaultModel: "qwen3-coder:30b",
    models: ["qwen3-coder:30b", "gpt-oss:20b", "llama3.3"],
    requiresKey: false,
    local: true,
    aliases: ["ollama-local"],
  },
  {
    id: "lmstudio",
    label: "LM Studio",
    baseUrl: "http://127.0.0.1:1234/v1",
    keyEnv: ["LM_API_KEY"],
    baseUrlEnv: "LM_BASE_URL",
    apiMode: "chat_completions",
    defaultModel: "qwen/qwen3-coder-30b",
    models: ["qwen/qwen3-coder-30b", "openai/gpt-oss-20b"],
    requiresKey: false,
    local: true,
    aliases: ["lm-studio", "lm_studio"],
  },
  {
    id: "llamacpp",
    label: "llama.cpp",
    baseUrl: "http://127.0.0.1:8080/v1",
    keyEnv: [],
    baseUrlEnv: "LLAMACPP_BASE_URL",
    apiMode: "chat_completions",
    models: [],
    requiresKey: false,
    local: true,
    aliases: ["llama.cpp", "llama-cpp", "llama_cpp", "llama-server"],
  },
  {
    id: "vllm",
    label: "vLLM",
    baseUrl: "http://127.0.0.1:8000/v1",
    keyEnv: ["VLLM_API_KEY"],
    baseUrlEnv: "VLLM_BASE_URL",
    apiMode: "chat_completions",
    models: [],
    requiresKey: false,
    local: true,
    aliases: [],
  },
  {
    id: "custom",
    label: "Custom endpoint",
    baseUrl: "",
    keyEnv: ["OPENAI_API_KEY"],
    baseUrlEnv: "OPENAI_BASE_URL",
    apiMode: "chat_completions",
    models: [],
    requiresKey: false,
    local: false,
    aliases: ["openai-compatible"],
  },
];

/**
 * Credential-based auto-detection order (Hermes' `auto`): the first provider whose key is present wins.
 * OpenRouter first, as in Hermes; local servers and `custom` are never auto-detected from keys.
 */
export const AUTO_DETECT_ORDER: readonly string[] = ["openrouter", "nous", "anthropic", "openai-api", "gemini", "deepseek", "xai"];

const BY_ID = new Map<string, ProviderInfo>();
for (const provider of PROVIDERS) {
  BY_ID.set(provider.id, provider);
  for (const alias of provider.aliases) BY_ID.set(alias, provider);
}

/** Trim, lower-case and resolve aliases (`openai` → `openai-api`, `claude` → `anthropic`). Unknown ids pass through normalised. */
export function normaliseProviderId(id: string): string {
  const key = id.trim().toLowerCase();
  return BY_ID.get(key)?.id ?? key;
}

/** The catalogue entry for an id or alias, if any. */
export function findProvider(id: string): ProviderInfo | undefined {
  return BY_ID.get(id.trim().toLowerCase());
}

/** Human label for a provider id (`custom:<name>` → `Custom (<name>)`); unknown ids label themselves. */
export function providerLabel(id: string): string {
  const normalised = normaliseProviderId(id);
  if (normalised.startsWith("custom:")) return `Custom (${normalised.slice("custom:".length)})`;
  return findProvider(normalised)?.label ?? normalised;
}

/** Every env variable that holds a provider credential (kept out of the commands the agent runs). */
export const PROVIDER_SECRET_ENV: ReadonlySet<string> = new Set([
  ...PROVIDERS.flatMap((p) => p.keyEnv),
  "HERMES_API_KEY",
  "OPENROUTER_API_KEY",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_TOKEN",
  "CLAUDE_CODE_OAUTH_TOKEN",
  "OPENAI_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "KIMI_API_KEY",
  "GLM_API_KEY",
  "ZAI_API_KEY",
  "MINIMAX_API_KEY",
  "HF_TOKEN",
  "NVIDIA_API_KEY",
  "OLLAMA_API_KEY",
  "DASHSCOPE_API_KEY",
]);
