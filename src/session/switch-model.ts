import { parseModelSelection } from "../llm/resolve.ts";
import { DomainError } from "./errors.ts";
import type { LiveSession } from "./live-session.ts";

/**
 * Points the session at another model for its next request and persists it. On the same
 * provider the endpoint (base_url, api_mode) is kept; another provider resolves its own.
 */
export function switchModel(session: LiveSession, value: string): { provider: string; model: string } {
  const cfg = session.services.config();
  if (!cfg.ok) throw new DomainError("CONFIG_INVALID", cfg.error.message);
  const current = session.resolveRuntime();
  const currentProvider = current.ok ? current.runtime.provider : (session.settings.provider ?? "openrouter");
  const picked = parseModelSelection(value.trim(), currentProvider, cfg.config);
  if (!picked.model) throw new DomainError("INVALID_VALUE", `Could not understand the model "${value}". Use provider:model or a model name.`);
  const sameProvider = picked.provider === currentProvider;
  const { baseUrl: _b, apiMode: _a, ...rest } = session.settings;
  session.settings = {
    ...(sameProvider ? session.settings : rest),
    provider: picked.provider,
    model: picked.model,
  };
  session.saveSettings();
  return picked;
}
