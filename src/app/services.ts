import { mkdirSync } from "node:fs";
import { fileStamp } from "../util/file-stamp.ts";
import { hermesHome, hermesPaths, type HermesPaths } from "../config/paths.ts";
import { loadDotEnv } from "../config/env.ts";
import type { HermesConfig } from "../config/schema.ts";
import type { ConfigError } from "../config/load.ts";
import type { SessionStore } from "../session/store.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { LlmClient } from "../llm/types.ts";
import type { Runtime } from "../llm/resolve.ts";
import { log } from "../util/log.ts";
import { DomainError } from "../session/errors.ts";
import { detectionKey, readCachedProvider, writeCachedProvider } from "./provider-cache.ts";

/** What sessions need (config, state.db), imported after `initialize` has been answered. */
async function importModules() {
  const [load, store, resolve] = await Promise.all([import("../config/load.ts"), import("../session/store.ts"), import("../llm/resolve.ts")]);
  return { loadConfig: load.loadConfig, SessionStore: store.SessionStore, detectProvider: resolve.detectProvider };
}
type Modules = Awaited<ReturnType<typeof importModules>>;

/** What turns need (tools, provider clients), imported on the first prompt so session/new stays quick. */
async function importTurnModules() {
  const [registry, builtin, createClient, recordReplay] = await Promise.all([
    import("../tools/registry.ts"),
    import("../tools/builtin.ts"),
    import("../llm/create-client.ts"),
    import("../llm/record-replay.ts"),
  ]);
  return {
    ToolRegistry: registry.ToolRegistry,
    builtinTools: builtin.builtinTools,
    createLlmClient: createClient.createLlmClient,
    wrapForRecordReplay: recordReplay.wrapForRecordReplay,
  };
}
type TurnModules = Awaited<ReturnType<typeof importTurnModules>>;

export type ConfigResult = { ok: true; config: HermesConfig } | { ok: false; error: ConfigError };

/**
 * The process-wide things sessions share, created on first use: nothing here runs before
 * `initialize` has been answered (startup time is the first thing a user feels).
 */
export class Services {
  readonly env: Record<string, string | undefined>;
  readonly paths: HermesPaths;
  private storeInstance: SessionStore | undefined;
  private registryInstance: ToolRegistry | undefined;
  private envLoaded = false;
  private configCache: { stamp: string; result: ConfigResult } | undefined;
  private mods: Modules | undefined;
  private turnMods: Promise<TurnModules> | undefined;

  constructor(env: Record<string, string | undefined> = process.env) {
    this.env = env;
    this.paths = hermesPaths(hermesHome(env));
  }

  /** Imports the heavy modules (SQLite, zod schemas, providers, tools); call before any other method. */
  async load(): Promise<this> {
    this.mods ??= await importModules();
    return this;
  }

  private get m(): Modules {
    if (!this.mods) throw new Error("Services.load() must be awaited before use");
    return this.mods;
  }

  /** Loads $HERMES_HOME/.env once; its values override stale shell values, as Hermes does. */
  loadEnv(): void {
    if (this.envLoaded) return;
    this.envLoaded = true;
    const result = loadDotEnv(this.paths.env, this.env);
    if (result.error) log.warn(result.error);
    else if (result.loaded) log.info(`Loaded env from ${this.paths.env}`);
    else log.debug(`No .env found at ${this.paths.env}, using system env`);
  }

  /** Read on every use so edits to config.yaml apply to the next session without a restart. */
  config(): ConfigResult {
    this.loadEnv();
    // Parsed again only when the file changed: sessions read settings many times per request.
    const stamp = fileStamp(this.paths.config);
    if (this.configCache?.stamp !== stamp) this.configCache = { stamp, result: this.m.loadConfig(this.paths.config) };
    return this.configCache.result;
  }

  /** The provider whose credential is usable now (hermes-behaviour §5.1), or null. Never throws. */
  detectProvider(): string | null {
    try {
      const cfg = this.config();
      return cfg.ok ? this.m.detectProvider(cfg.config, this.env) : null;
    } catch (e) {
      log.warn("provider detection failed", e);
      return null;
    }
  }

  /**
   * Provider detection for `initialize`, before anything heavy is loaded: answered from the detection
   * cache when its inputs are unchanged, else computed (loading only config and resolution) and cached.
   */
  async detectProviderEarly(): Promise<string | null> {
    // The key covers .env by its file stamp, so a hit needs neither dotenv nor the config schema.
    const key = detectionKey(this.paths, this.env);
    const cached = readCachedProvider(this.paths, key);
    if (cached !== undefined) return cached;
    this.loadEnv();
    try {
      const [{ loadConfig }, { detectProvider }] = await Promise.all([import("../config/load.ts"), import("../llm/resolve.ts")]);
      const cfg = loadConfig(this.paths.config);
      const provider = cfg.ok ? detectProvider(cfg.config, this.env) : null;
      if (cfg.ok) writeCachedProvider(this.paths, key, provider);
      return provider;
    } catch (e) {
      log.warn("provider detection failed", e);
      return null;
    }
  }

  store(): SessionStore {
    if (!this.storeInstance) {
      try {
        mkdirSync(this.paths.home, { recursive: true });
        this.storeInstance = this.m.SessionStore.open(this.paths.stateDb);
      } catch (e) {
        throw new DomainError(
          "STORE_UNAVAILABLE",
          `Cannot open the session store ${this.paths.stateDb}: ${e instanceof Error ? e.message : String(e)}. ` +
            "Check its permissions and free disk space, or move a damaged file aside (Hermes keeps its history there); `hermes-acp --check` tells more.",
          { file: this.paths.stateDb },
        );
      }
    }
    return this.storeInstance;
  }

  private turn(): Promise<TurnModules> {
    this.turnMods ??= importTurnModules();
    return this.turnMods;
  }

  async registry(): Promise<ToolRegistry> {
    const t = await this.turn();
    this.registryInstance ??= new t.ToolRegistry(t.builtinTools());
    return this.registryInstance;
  }

  /** One client per provider endpoint; clients hold no per-session state. */
  /** A client for the runtime's endpoint (callers keep it: clients hold no conversation state). */
  async llm(runtime: Runtime, onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void): Promise<LlmClient> {
    const t = await this.turn();
    return t.wrapForRecordReplay(t.createLlmClient(runtime, { ...(onRetry ? { onRetry } : {}), ...this.llmTimeouts() }), this.env);
  }

  private llmTimeouts() {
    const num = (v: string | undefined) => (v && Number.isFinite(Number(v)) ? Number(v) : undefined);
    const retries = num(this.env.HERMES_ACP_MAX_RETRIES);
    const base = num(this.env.HERMES_ACP_RETRY_BASE_MS);
    return {
      ...(num(this.env.HERMES_ACP_REQUEST_TIMEOUT_MS) ? { timeoutMs: num(this.env.HERMES_ACP_REQUEST_TIMEOUT_MS) } : {}),
      ...(num(this.env.HERMES_ACP_IDLE_TIMEOUT_MS) ? { idleTimeoutMs: num(this.env.HERMES_ACP_IDLE_TIMEOUT_MS) } : {}),
      ...(retries !== undefined || base !== undefined
        ? { retry: { maxRetries: retries ?? 3, baseDelayMs: base ?? 1000, maxDelayMs: Math.max(base ?? 1000, 30_000) } }
        : {}),
    };
  }

  close(): void {
    try {
      this.storeInstance?.close();
    } catch (e) {
      log.warn("closing state.db failed", e);
    }
    this.storeInstance = undefined;
  }
}
