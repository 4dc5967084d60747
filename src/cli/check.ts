// `--check`, the doctor: config parses, a provider resolves with its key, the provider's models endpoint accepts
// the key, state.db is healthy. Success is exactly one stdout line starting `Hermes ACP check OK` (editors and
// scripts match it); warnings go to stderr and never fail the check; each problem is printed with its fix.
import { Database } from "bun:sqlite";
import { accessSync, constants, existsSync } from "node:fs";
import { z } from "zod";
import { Services } from "../app/services.ts";
import type { EnvLike } from "../config/paths.ts";
import { resolveRuntime, type Runtime } from "../llm/resolve.ts";
import { SCHEMA_VERSION } from "../session/store.ts";
import { resolveSummariser } from "../session/summariser.ts";
import { MODES, isMode } from "../session/modes.ts";
import { mask } from "../util/redact.ts";
import { VERSION } from "../version.ts";

export type Problem = { what: string; fix: string };

export type CheckOptions = {
  /** The OK line or the problems (default: stdout). */
  out?: (line: string) => void;
  /** Warnings, which do not fail the check (default: stderr). */
  warn?: (line: string) => void;
  /** Defaults to process.env; $HERMES_HOME/.env is loaded into it, as the server does. */
  env?: EnvLike;
  /** Bound on the models-endpoint request (default 3 s): a doctor must not hang on a dead network. */
  timeoutMs?: number;
};

export const MODELS_TIMEOUT_MS = 3000;

/** Exit code 0 with one OK line, or 1 with each problem and its fix. Keys are only ever shown masked. */
export async function runCheck(options: CheckOptions = {}): Promise<number> {
  const out = options.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const warn = options.warn ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const problems: Problem[] = [];
  const warnings: string[] = [];
  const notes: string[] = [];
  const services = await new Services(options.env ?? process.env).load();
  const paths = services.paths;

  try {
    await import("@agentclientprotocol/sdk"); // what the serve path loads
  } catch (e) {
    problems.push({ what: `The ACP SDK failed to load: ${message(e)}`, fix: "Reinstall hermes-acp." });
  }

  const cfg = services.config();
  if (!cfg.ok) problems.push({ what: cfg.error.message, fix: cfg.error.fix ?? `Fix or remove ${paths.config}.` });

  let runtime: Runtime | undefined;
  if (cfg.ok) {
    const r = resolveRuntime({ config: cfg.config, env: services.env });
    if (!r.ok) problems.push({ what: r.error, fix: `Run \`hermes-acp --setup\`, or add a key such as OPENROUTER_API_KEY to ${paths.env}.` });
    else {
      runtime = r.runtime;
      const key = runtime.apiKey ? `key ${mask(runtime.apiKey)}${runtime.keySource ? ` from ${runtime.keySource}` : ""}` : "no key";
      notes.push(`provider ${runtime.provider}, model ${runtime.model}, ${key}`);
      const summariser = resolveSummariser(cfg.config, services.env, runtime);
      if (summariser && !summariser.result.ok) {
        warnings.push(`the compression summary model ${summariser.label} cannot be used (${summariser.result.error}); summaries will be written by ${runtime.model}.`);
      } else if (summariser) notes.push(`summaries by ${summariser.label}`);
    }
    const mode = cfg.config.acp.default_mode;
    if (mode !== undefined && !isMode(mode.trim())) {
      warnings.push(`acp.default_mode "${mode}" in ${paths.config} is not a mode, so sessions start in "default". Use one of: ${MODES.map((m) => m.id).join(", ")}.`);
    } else if (mode !== undefined) notes.push(`mode ${mode.trim()}`);
  }

  if (runtime) {
    const probe = await probeModels(runtime, options.timeoutMs ?? MODELS_TIMEOUT_MS);
    const verdict = judgeProbe(probe, runtime, paths.env);
    if (verdict.problem) problems.push(verdict.problem);
    if (verdict.warning) warnings.push(verdict.warning);
    if (verdict.note) notes.push(verdict.note);
  }

  const db = checkStateDb(services);
  if (db.problem) problems.push(db.problem);
  if (db.warning) warnings.push(db.warning);
  if (db.note) notes.push(db.note);

  if (problems.length === 0) {
    out(`Hermes ACP check OK (v${VERSION}; ${notes.join("; ")})`);
    for (const w of warnings) warn(`Warning: ${w}`);
    return 0;
  }
  out(`Hermes ACP check found ${problems.length} problem${problems.length === 1 ? "" : "s"}:`);
  for (const p of problems) out(`- ${p.what}\n  Fix: ${p.fix}`);
  if (!existsSync(paths.home)) out(`(HERMES_HOME is ${paths.home}, which does not exist yet.)`);
  for (const w of warnings) warn(`Warning: ${w}`);
  return 1;
}

// ---- models endpoint -----------------------------------------------------------------------------------

export type ModelsProbe =
  | { kind: "listed"; url: string; models: string[] }
  | { kind: "rejected"; url: string; status: number }
  | { kind: "http_error"; url: string; status: number }
  | { kind: "unreachable"; url: string; reason: string };

/** The request that lists models for this runtime: OpenAI-style bearer, or Anthropic's x-api-key. */
export function modelsRequest(runtime: Runtime): { url: string; headers: Record<string, string> } {
  const base = runtime.baseUrl.trim().replace(/\/+$/, "");
  if (runtime.apiMode === "anthropic_messages") {
    const headers: Record<string, string> = { accept: "application/json", "anthropic-version": "2023-06-01" };
    // Claude subscription OAuth tokens go as a bearer token with the oauth beta flag (as in anthropic-messages.ts).
    if (runtime.apiKey?.startsWith("sk-ant-oat")) {
      headers.authorization = `Bearer ${runtime.apiKey}`;
      headers["anthropic-beta"] = "oauth-2025-04-20";
    } else if (runtime.apiKey) headers["x-api-key"] = runtime.apiKey;
    return { url: `${base.replace(/\/v1$/, "")}/v1/models?limit=1000`, headers };
  }
  return { url: `${base}/models`, headers: runtime.apiKey ? { accept: "application/json", authorization: `Bearer ${runtime.apiKey}` } : { accept: "application/json" } };
}

const ModelList = z.looseObject({ data: z.array(z.looseObject({ id: z.string() }).catch({ id: "" })) });

/** One bounded GET of the models endpoint. Never throws. */
export async function probeModels(runtime: Runtime, timeoutMs = MODELS_TIMEOUT_MS): Promise<ModelsProbe> {
  const { url, headers } = modelsRequest(runtime);
  try {
    // No redirects: following one could carry the key to another host.
    const res = await fetch(url, { headers, redirect: "error", signal: AbortSignal.timeout(timeoutMs) });
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel().catch(() => undefined);
      return { kind: "rejected", url, status: res.status };
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      return { kind: "http_error", url, status: res.status };
    }
    const list = ModelList.safeParse(await res.json().catch(() => null));
    const models = list.success ? list.data.data.map((m) => m.id.replace(/^models\//, "")).filter(Boolean) : [];
    return { kind: "listed", url, models };
  } catch (e) {
    const timedOut = e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError");
    return { kind: "unreachable", url, reason: timedOut ? `no answer within ${timeoutMs / 1000} s` : message(e) };
  }
}

type Verdict = { problem?: Problem; warning?: string; note?: string };

/** Only a rejected key fails the check: offline, a proxy, or a server without /models still lets turns work. */
export function judgeProbe(probe: ModelsProbe, runtime: Runtime, envFile: string): Verdict {
  switch (probe.kind) {
    case "listed": {
      const n = probe.models.length;
      const note = `models endpoint OK${n > 0 ? ` (${n} model${n === 1 ? "" : "s"})` : ""}`;
      if (probe.models.length > 0 && !probe.models.includes(runtime.model)) {
        return { note, warning: `${probe.url} does not list the model "${runtime.model}"; check the name (set model.default in config.yaml, or pick one with /model).` };
      }
      return { note };
    }
    case "rejected": {
      const from = runtime.keySource ? ` (from ${runtime.keySource})` : " (none was sent)";
      return {
        problem: {
          what: `${probe.url} rejected the API key${from} with HTTP ${probe.status}.`,
          fix: `Put a valid key for ${runtime.provider} in ${envFile}, or run \`hermes-acp --setup\`.`,
        },
      };
    }
    case "http_error":
      return { warning: `${probe.url} answered HTTP ${probe.status}; check model.base_url if prompts fail.`, note: "models endpoint not checked" };
    case "unreachable":
      return { warning: `could not reach ${probe.url} (${probe.reason}); check the network or model.base_url.`, note: "models endpoint unreachable" };
  }
}

// ---- state.db ------------------------------------------------------------------------------------------

const VersionRow = z.object({ v: z.number().nullable() });

function checkStateDb(services: Services): Verdict {
  const path = services.paths.stateDb;
  try {
    const integrity = services.store().integrityCheck();
    accessSync(path, constants.W_OK);
    if (integrity.trim() !== "ok") {
      return {
        problem: {
          what: `state.db at ${path} failed its integrity check: ${integrity.split("\n").slice(0, 3).join("; ")}`,
          fix: `Quit Hermes and the editor, back up ${path}, then recover it (\`sqlite3 state.db .recover | sqlite3 fixed.db\`) or move it aside to start a new one.`,
        },
      };
    }
  } catch (e) {
    return {
      problem: {
        what: `state.db at ${path} cannot be used: ${message(e)}`,
        fix: `Check the permissions of ${services.paths.home} (or set HERMES_HOME to a writable directory); if the file is damaged, move it aside.`,
      },
    };
  } finally {
    services.close();
  }
  const version = schemaVersion(path);
  const note = `state.db ${path} (schema ${version === undefined ? "unknown" : `v${version}`}, integrity ok)`;
  if (version === undefined || version < SCHEMA_VERSION) {
    const found = version === undefined ? "has no schema version" : `is schema v${version}`;
    return { note, warning: `state.db ${found}, older than Hermes' v${SCHEMA_VERSION}; run Hermes once to migrate it.` };
  }
  return { note };
}

function schemaVersion(path: string): number | undefined {
  let db: Database | undefined;
  try {
    db = new Database(path, { readonly: true });
    const row = VersionRow.safeParse(db.query("SELECT MAX(version) AS v FROM schema_version").get());
    return row.success && row.data.v !== null ? row.data.v : undefined;
  } catch {
    return undefined; // no schema_version table: a pre-versioning layout
  } finally {
    db?.close(false);
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
