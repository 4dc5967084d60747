import type { ChatMessage } from "../agent/messages.ts";
import type { StopReason } from "../agent/stop-reason.ts";
import type { SessionApprover } from "../approvals/session-approver.ts";
import { modelSettings } from "../config/load.ts";
import { resolveRuntime, type Runtime } from "../llm/resolve.ts";
import type { LlmClient, Usage } from "../llm/types.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { log } from "../util/log.ts";
import type { Services } from "../app/services.ts";
import type { ClientPorts } from "./ports.ts";
import type { SessionSettings } from "./settings.ts";
import { settingsToModelConfig } from "./settings.ts";
import type { UserInput } from "../protocol/content.ts";
import { estimateTokens } from "../agent/tokens.ts";
import { DomainError } from "./errors.ts";
import { catalogContextLength } from "./model-choices.ts";
import { sessionProvenance } from "./provenance.ts";
import { TurnQueue } from "./turn-queue.ts";
import { SessionMcp } from "./session-mcp.ts";
import { keepAlive, keepaliveSettings, TrackedSink } from "./keepalive.ts";

const DEFAULT_CONTEXT = 128_000;

/**
 * One ACP session in memory: its settings, the model context, and the turn queue. Each
 * session owns its approvals, tool state and abort controller — nothing is process-global.
 */
export class LiveSession {
  /** The internal Hermes session id; changes when compression rotates the transcript. */
  hermesId: string;
  history: ChatMessage[];
  title: string | null;
  readonly toolState = new Map<string, unknown>();
  private bench: Promise<{ approver: SessionApprover }> | undefined;
  lastUsage: { used: number; size: number } | undefined;
  /** Prompts parked with /queue while idle; they run after the next turn. */
  readonly deferred: UserInput[] = [];
  readonly queue: TurnQueue;
  private llmCache: { key: string; client: LlmClient } | undefined;
  private windowCache: { key: string; at: number; size: number | undefined } | undefined;
  readonly mcp: SessionMcp;
  private cost = 0;
  private readonly toolCallIds = new Set<string>();

  readonly ports: ClientPorts & { sink: TrackedSink };

  constructor(
    readonly id: string,
    public settings: SessionSettings,
    readonly services: Services,
    ports: ClientPorts,
    init: { hermesId: string; history: ChatMessage[]; title: string | null },
  ) {
    this.ports = { ...ports, sink: new TrackedSink(ports.sink) };
    this.hermesId = init.hermesId;
    this.history = init.history;
    this.title = init.title;
    for (const m of init.history) if (m.role === "assistant") for (const c of m.tool_calls ?? []) this.toolCallIds.add(c.id);
    this.queue = new TurnQueue(() => new DomainError("SESSION_NOT_FOUND", `Session not found or closed: ${id}`, { sessionId: id }));
    this.mcp = new SessionMcp(id, services, this.ports.sink);
  }

  get cwd(): string {
    return this.settings.cwd;
  }

  /** Prompts wait their turn; each gets its own stop reason, in order. A closed session takes none. */
  enqueue(run: (signal: AbortSignal) => Promise<StopReason>): Promise<StopReason> {
    return this.queue.enqueue(async (signal) => {
      const cfg = this.services.config();
      const stop = keepAlive(this.ports.sink, keepaliveSettings(cfg.ok ? cfg.config : undefined));
      try {
        return await run(signal);
      } finally {
        stop();
      }
    });
  }

  /** Ends the running turn, everything queued behind it and the prompts parked with /queue. */
  cancel(): void {
    this.deferred.length = 0;
    this.queue.cancel();
  }

  /** The tools of this session: the built-in ones plus its MCP servers' tools. */
  async tools(): Promise<ToolRegistry> {
    return this.mcp.registry(await this.services.registry());
  }

  /** session/close and delete: cancel, stop its background processes, let go of its MCP servers. */
  dispose(): void {
    this.deferred.length = 0;
    this.queue.close();
    this.mcp.release();
    void import("../tools/process-registry.ts").then((m) => m.processRegistry.killAllForSession(this.id));
  }

  /** The provider client for `runtime`, kept while the endpoint stays the same; retries show as notices. */
  async llm(runtime: Runtime): Promise<LlmClient> {
    const key = `${runtime.provider}|${runtime.baseUrl}|${runtime.apiMode}|${runtime.apiKey ?? ""}`;
    if (this.llmCache?.key !== key) {
      const client = await this.services.llm(runtime, (info) => {
        void this.ports.sink.emit({
          type: "notice",
          severity: "warning",
          title: "Provider busy, retrying",
          description: `${info.reason}; retry ${info.attempt} in ${Math.round(info.delayMs / 1000)} s`,
        });
      });
      this.llmCache = { key, client };
    }
    return this.llmCache.client;
  }

  /**
   * What running tools needs — the approver and the todo list restored from history — loaded with
   * the first turn rather than at session/new (startup time is the first thing a user feels).
   */
  workbench(): Promise<{ approver: SessionApprover }> {
    this.bench ??= (async () => {
      const [{ createSessionApprover }, { rebuildTodosFromHistory, todoStoreOf }] = await Promise.all([
        import("./session-approver-setup.ts"),
        import("../tools/todo-store.ts"),
      ]);
      if (!this.toolState.has("todo")) todoStoreOf(this.toolState).replace(rebuildTodosFromHistory(this.history));
      return { approver: createSessionApprover(this.services, this.ports.permissions, { mode: () => this.settings.mode, cwd: () => this.settings.cwd }) };
    })();
    return this.bench;
  }

  async runTurn(input: UserInput, signal: AbortSignal): Promise<StopReason> {
    const { runTurn } = await import("./turn.ts");
    return runTurn(this, input, signal);
  }

  /** /reset: the conversation starts over; old rows are marked inactive, never deleted. */
  reset(): void {
    const store = this.services.store();
    for (const hermesId of store.lineage(this.id)) store.deactivateMessages(hermesId);
    this.history = [];
    this.toolState.clear();
  }

  /** /compress: compress now, whatever the threshold; the reply for the user. */
  async compressNow(signal: AbortSignal): Promise<string> {
    if (this.history.length === 0) return "Nothing to compress — conversation is empty.";
    const resolved = this.resolveRuntime();
    if (!resolved.ok) return `Compression failed: ${resolved.error}`;
    const llm = await this.llm(resolved.runtime);
    await this.workbench(); // the todo list must be known: compression carries it over
    const { compactSession } = await import("./compaction.ts");
    const outcome = await compactSession(this, { runtime: resolved.runtime, llm, signal, force: true });
    if (!outcome.ok) return outcome.error.startsWith("Nothing to compress") ? outcome.error : `Compression failed: ${outcome.error}`;
    const fmt = (n: number) => n.toLocaleString("en-US");
    return `Context compressed: ${outcome.before.messages} -> ${outcome.after.messages} messages\n~${fmt(outcome.before.tokens)} -> ~${fmt(outcome.after.tokens)} tokens`;
  }

  /** `_meta` with this session's provenance (hermes-behaviour §16), flagging a rotation from `previous`. */
  provenanceMeta(previous?: string): Record<string, unknown> | undefined {
    const p = sessionProvenance(this.services.store(), this.id, this.hermesId, previous);
    return p ? { hermes: { sessionProvenance: p } } : undefined;
  }

  announceConfigOptions(): Promise<void> {
    return this.ports.configChanged();
  }

  /** Persists settings (mode, model, cwd…) to state.db. */
  saveSettings(): void {
    try {
      this.services.store().updateSession(this.id, {
        model: this.settings.model ?? null,
        modelConfig: settingsToModelConfig(this.settings),
      });
    } catch (e) {
      log.warn(`could not save session ${this.id} settings`, e);
    }
  }

  persist(message: ChatMessage): void {
    // A deleted session's rows are gone; the turn being cancelled has nothing left to save to.
    if (this.queue.isClosed) return;
    try {
      this.services.store().appendMessages(this.hermesId, [message]);
    } catch (e) {
      log.error(`could not persist a message of session ${this.id}`, e);
      void this.ports.sink.emit({ type: "notice", severity: "error", title: "History could not be saved", description: String(e) });
    }
  }

  resolveRuntime(): { ok: true; runtime: Runtime } | { ok: false; error: string } {
    const cfg = this.services.config();
    if (!cfg.ok) return { ok: false, error: cfg.error.message };
    return resolveRuntime({
      config: cfg.config,
      env: this.services.env,
      ...(this.settings.provider ? { requestedProvider: this.settings.provider } : {}),
      ...(this.settings.model ? { requestedModel: this.settings.model } : {}),
      ...(this.settings.baseUrl ? { baseUrl: this.settings.baseUrl } : {}),
      ...(this.settings.apiMode ? { apiMode: this.settings.apiMode } : {}),
    });
  }

  currentRuntime(): Runtime | undefined {
    const resolved = this.resolveRuntime();
    return resolved.ok ? resolved.runtime : undefined;
  }

  contextSize(runtime?: Runtime): number {
    const r = runtime ?? this.currentRuntime();
    if (r?.contextLength) return r.contextLength;
    const cfg = this.services.config();
    const fromConfig = cfg.ok ? modelSettings(cfg.config).contextLength : undefined;
    return fromConfig ?? (r ? this.catalogWindow(r) : undefined) ?? DEFAULT_CONTEXT;
  }

  /** The catalogue's window for the model, remembered for a minute: it is asked before every model call. */
  private catalogWindow(r: Runtime): number | undefined {
    const key = `${r.provider}:${r.model}`;
    const now = Date.now();
    if (this.windowCache?.key !== key || now - this.windowCache.at > 60_000) {
      this.windowCache = { key, at: now, size: catalogContextLength(this, r.provider, r.model) };
    }
    return this.windowCache.size;
  }

  maxIterations(): number {
    const cfg = this.services.config();
    return cfg.ok ? (cfg.config.agent?.max_turns ?? 90) : 90;
  }

  async emitUsage(runtime?: Runtime, usage?: Usage): Promise<void> {
    const size = this.contextSize(runtime);
    if (usage?.cost) this.cost += usage.cost;
    const used = usage ? usage.promptTokens + usage.completionTokens : estimateTokens(this.history);
    this.lastUsage = { used, size };
    await this.ports.sink.emit({ type: "usage", used, size, ...(this.cost > 0 ? { cost: this.cost } : {}) });
  }

  /** Makes a provider tool-call id unique in this session (some servers reuse `call_0`); replay uses the same ids. */
  uniqueToolCallId(id: string): string {
    let unique = id || `call_${crypto.randomUUID().slice(0, 12)}`;
    while (this.toolCallIds.has(unique)) unique = `call_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
    this.toolCallIds.add(unique);
    return unique;
  }
}
