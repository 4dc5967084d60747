import { z } from "zod";
import type { Mode } from "../approvals/edit-policy.ts";
import { isMode } from "./modes.ts";
import { lazy } from "../util/lazy.ts";

/** What a session remembers across restarts, kept in `sessions.model_config` (Hermes' keys plus ours). */
export type SessionSettings = {
  cwd: string;
  mode: Mode;
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiMode?: string;
  /** Other config option values by id (e.g. thought_level). */
  options: Record<string, string>;
};

const StoredSettings = lazy(() =>
  z.looseObject({
    cwd: z.string().optional(),
    provider: z.string().optional(),
    base_url: z.string().optional(),
    api_mode: z.string().optional(),
    model: z.string().optional(),
    acp_mode: z.string().optional(),
    acp_options: z.record(z.string(), z.string()).optional(),
  }),
);

export function settingsFromModelConfig(modelConfig: Record<string, unknown>, model: string | null): SessionSettings {
  const parsed = StoredSettings().safeParse(modelConfig);
  const s = parsed.success ? parsed.data : {};
  return {
    cwd: s.cwd ?? ".",
    mode: isMode(s.acp_mode) ? s.acp_mode : "default",
    ...(s.provider ? { provider: s.provider } : {}),
    ...(model ?? s.model ? { model: (model ?? s.model) as string } : {}),
    ...(s.base_url ? { baseUrl: s.base_url } : {}),
    ...(s.api_mode ? { apiMode: s.api_mode } : {}),
    options: s.acp_options ?? {},
  };
}

export function settingsToModelConfig(s: SessionSettings): Record<string, unknown> {
  return {
    cwd: s.cwd,
    ...(s.provider ? { provider: s.provider } : {}),
    ...(s.baseUrl ? { base_url: s.baseUrl } : {}),
    ...(s.apiMode ? { api_mode: s.apiMode } : {}),
    acp_mode: s.mode,
    acp_options: s.options,
  };
}
