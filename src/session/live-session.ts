import { tmpdir, homedir } from "node:os";
import type { ChatMessage } from "../agent/messages.ts";
import { textOf } from "../agent/messages.ts";
import type { StopReason } from "../agent/stop-reason.ts";
import { isAbortError } from "../agent/stop-reason.ts";
import { runAgentLoop } from "../agent/loop.ts";
import type { ToolRunner } from "../agent/tool-call.ts";
import { buildSystemPrompt } from "../agent/system-prompt.ts";
import { SessionApprover } from "../approvals/session-approver.ts";
import { addToCommandAllowlist } from "../config/allowlist.ts";
import { modelSettings } from "../config/load.ts";
import { resolveRuntime, type Runtime } from "../llm/resolve.ts";
import type { Usage } from "../llm/types.ts";
import type { AnyTool, ToolContext } from "../tools/types.ts";
import { ToolRegistry } from "../tools/registry.ts";
import type { McpAttachment } from "../mcp/attachments.ts";
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
import { compactSession, maybeCompact } from "./compaction.ts";
import { isContextLengthError } from "../agent/compression.ts";
import { rebuildTodosFromHistory, todoStoreOf } from "../tools/todo-store.ts";
import { processRegistry } from "../tools/process-registry.ts";

const DEFAULT_CONTEXT = 128_000;

/** HERMES_YOLO_MODE=1 or config.yaml `approvals.mode: off`: allow all but hardline commands and sensitive paths. */
function yoloMode(services: Services): boolean {
  if (/^(1|true|yes)$/i.test(services.env.HERMES_YOLO_MODE ?? "")) return true;
  const cfg = services.config();
  return cfg.ok && cfg.config.approvals.mode === "off";
}

/** config.yaml `approvals.timeout` (seconds); an unanswered prompt denies after it. */
function approvalTimeoutMs(services: Services): number | undefined {
  const cfg = services.config();
  const seconds = cfg.ok ? cfg.config.approvals?.timeout : undefined;
  return typeof seconds === "number" && seconds > 0 ? seconds * 1000 : undefined;
}

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
  readonly approver: SessionApprover;
  lastUsage: { used: number; size: number } | undefined;
  /** Prompts parked with /queue while idle; they run after the next turn. */
  readonly deferred: UserInput[] = [];
  private cost = 0;
  private chain: Promise<unknown> = Promise.resolve();
  private cancelEpoch = 0;
  private current: AbortController | null = null;
  private disposed = false;
  private steering: string[] = [];
  private pending = 0;
  private readonly toolCallIds = new Set<string>();
  /** MCP servers of this session, connecting in the background; turns wait for them. */
  private mcp: Promise<McpAttachment | undefined> = Promise.resolve(undefined);
  /** Set once the session has asked for its MCP servers (resume without a list keeps them). */
  mcpAttached = false;
  private registryCache: { mcpTools: AnyTool[]; registry: ToolRegistry } | undefined;

  constructor(
    readonly id: string,
    public settings: SessionSettings,
    readonly services: Services,
    readonly ports: ClientPorts,
    init: { hermesId: string; history: ChatMessage[]; title: string | null },
  ) {
    this.hermesId = init.hermesId;
    this.history = init.history;
    this.title = init.title;
    for (const m of init.history) if (m.role === "assistant") for (const c of m.tool_calls ?? []) this.toolCallIds.add(c.id);
    // A restored session regains its todo list from the last todo result in history.
    todoStoreOf(this.toolState).replace(rebuildTodosFromHistory(init.history));
    this.approver = new SessionApprover({
      port: ports.permissions,
      getMode: () => this.settings.mode,
      getCwd: () => this.settings.cwd,
      home: homedir(),
      hermesHome: services.paths.home,
      tmpDir: tmpdir(),
      commandAllowlist: () => {
        const c = services.config();
        return c.ok ? c.config.command_allowlist : [];
      },
      persistAllowlist: (pattern) => addToCommandAllowlist(services.paths.config, pattern),
      yolo: yoloMode(services),
      sudoPasswordSet: Boolean(services.env.SUDO_PASSWORD),
      timeoutMs: approvalTimeoutMs(services),
    });
  }

  get cwd(): string {
    return this.settings.cwd;
  }

  get running(): boolean {
    return this.current !== null;
  }

  /** Prompts wait their turn; each gets its own stop reason, in order. A closed session takes none. */
  enqueue(run: (signal: AbortSignal) => Promise<StopReason>): Promise<StopReason> {
    if (this.disposed) {
      return Promise.reject(new DomainError("SESSION_NOT_FOUND", `Session not found or closed: ${this.id}`, { sessionId: this.id }));
    }
    const epoch = this.cancelEpoch;
    this.pending++;
    const result = this.chain.then(async () => {
      this.pending--;
      if (epoch !== this.cancelEpoch || this.disposed) return "cancelled" as const;
      const controller = new AbortController();
      this.current = controller;
      try {
        return await run(controller.signal);
      } finally {
        if (this.current === controller) this.current = null;
      }
    });
    this.chain = result.catch(() => undefined);
    return result;
  }

  /** Number of prompts waiting behind the running turn. */
  get queued(): number {
    return this.pending;
  }

  /** Ends the running turn and everything queued behind it (the original kept draining the queue). */
  cancel(): void {
    this.cancelEpoch++;
    this.steering = [];
    this.deferred.length = 0;
    this.current?.abort();
  }

  /**
   * Connects the session's MCP servers (from config.yaml and the client) without delaying the response;
   * a later call replaces the set. Servers that fail are reported by /tools and never fail the session.
   */
  attachMcp(clientServers: unknown): void {
    this.mcpAttached = true;
    const cfg = this.services.config();
    const previous = this.mcp;
    this.mcp = (async () => {
      const { sessionSpecs } = await import("../mcp/server-spec.ts");
      const { specs, problems } = sessionSpecs(cfg.ok ? cfg.config : undefined, clientServers, this.cwd);
      if (specs.length === 0 && problems.length === 0) {
        await (await previous)?.release();
        return undefined;
      }
      const { McpAttachments } = await import("../mcp/attachments.ts");
      const attachment = await McpAttachments.attach(this.id, specs, { problems });
      for (const s of attachment.status()) {
        if (s.state === "failed") {
          log.warn(`MCP server '${s.name}' is unavailable: ${s.detail ?? "failed"}`);
          void this.ports.sink.emit({ type: "notice", severity: "warning", title: `MCP server ${s.name} unavailable`, description: s.detail });
        }
      }
      return attachment;
    })().catch((e) => {
      log.warn(`MCP setup for session ${this.id} failed`, e);
      return undefined;
    });
  }

  /** The tools of this session: the built-in ones plus its MCP servers' tools. */
  async tools(): Promise<ToolRegistry> {
    const mcpTools = (await this.mcp)?.tools() ?? [];
    const builtin = await this.services.registry();
    if (mcpTools.length === 0) return builtin;
    if (this.registryCache?.mcpTools !== mcpTools) {
      this.registryCache = { mcpTools, registry: new ToolRegistry([...builtin.list(), ...mcpTools]) };
    }
    return this.registryCache.registry;
  }

  async mcpStatusLines(): Promise<string[]> {
    return (await this.mcp)?.statusLines() ?? [];
  }

  /** session/close: cancel, and stop the background processes this session started. */
  dispose(): void {
    this.disposed = true;
    void this.mcp.then((m) => m?.release());
    this.cancel();
    processRegistry.killAllForSession(this.id);
  }

  steer(text: string): boolean {
    if (!this.current) return false;
    this.steering.push(text);
    return true;
  }

  /** /reset: the conversation starts over; old rows are marked inactive, never deleted. */
  reset(): void {
    const store = this.services.store();
    for (const hermesId of store.lineage(this.id)) store.deactivateMessages(hermesId);
    this.history = [];
    todoStoreOf(this.toolState).replace([]);
  }

  /** /compress: compress now, whatever the threshold; the reply for the user. */
  async compressNow(signal: AbortSignal): Promise<string> {
    if (this.history.length === 0) return "Nothing to compress — conversation is empty.";
    const resolved = this.resolveRuntime();
    if (!resolved.ok) return `Compression failed: ${resolved.error}`;
    const llm = await this.services.llm(resolved.runtime);
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
    if (this.disposed) return;
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
    return fromConfig ?? (r ? catalogContextLength(this, r.provider, r.model) : undefined) ?? DEFAULT_CONTEXT;
  }

  maxIterations(): number {
    const cfg = this.services.config();
    return cfg.ok ? (cfg.config.agent?.max_turns ?? 90) : 90;
  }

  /** Runs one prompt turn against the model. Never throws: failures end the turn with a message. */
  async runTurn(input: UserInput, signal: AbortSignal): Promise<StopReason> {
    const sink = this.ports.sink;
    const resolved = this.resolveRuntime();
    if (!resolved.ok) {
      await sink.emit({ type: "message_chunk", messageId: crypto.randomUUID(), text: `⚠️ ${resolved.error}` });
      return "end_turn";
    }
    const runtime = resolved.runtime;
    try {
      const llm = await this.services.llm(runtime, (info) => {
        void sink.emit({
          type: "notice",
          severity: "warning",
          title: "Provider busy, retrying",
          description: `${info.reason}; retry ${info.attempt} in ${Math.round(info.delayMs / 1000)} s`,
        });
      });
      if (signal.aborted) return "cancelled";
      const user: ChatMessage = { role: "user", content: input.content };
      this.history.push(user);
      this.persist(user);
      const registry = await this.tools();
      const systemPrompt = buildSystemPrompt({ cwd: this.cwd, model: runtime.model, tools: registry.list() });
      let overflowRetried = false;
      const result = await runAgentLoop({
        llm,
        model: runtime.model,
        systemPrompt,
        beforeModelCall: (promptTokens) => maybeCompact(this, { runtime, llm, signal, systemPrompt, ...(promptTokens ? { promptTokens } : {}) }),
        onContextOverflow: async (error) => {
          if (overflowRetried || !isContextLengthError(error)) return false;
          overflowRetried = true;
          return (await compactSession(this, { runtime, llm, signal, force: true })).ok;
        },
        tools: registry.specs(),
        runner: this.toolRunner(registry),
        sink,
        signal,
        maxIterations: this.maxIterations(),
        ...(runtime.maxTokens ? { maxTokens: runtime.maxTokens } : {}),
        ...(this.settings.options.thought_level ? { reasoningEffort: this.settings.options.thought_level } : {}),
        history: this.history,
        persist: (m) => this.persist(m),
        takeSteering: () => this.steering.splice(0),
        newMessageId: () => crypto.randomUUID(),
        uniqueToolCallId: (id) => this.uniqueToolCallId(id),
      });
      if (result.error && !signal.aborted) {
        log.warn(`turn of session ${this.id} ended by a provider error: ${result.error.message}`);
        await sink.emit({ type: "message_chunk", messageId: crypto.randomUUID(), text: `\n\n⚠️ ${result.error.message}` });
        await sink.emit({ type: "notice", severity: "error", title: "Model provider error", description: result.error.message });
      }
      await this.emitUsage(runtime, result.usage);
      return signal.aborted ? "cancelled" : result.stopReason;
    } catch (e) {
      if (signal.aborted || isAbortError(e)) return "cancelled";
      log.error(`turn of session ${this.id} failed`, e);
      await sink
        .emit({ type: "message_chunk", messageId: crypto.randomUUID(), text: `⚠️ Internal error: ${e instanceof Error ? e.message : String(e)}` })
        .catch(() => undefined);
      return "end_turn";
    }
  }

  async emitUsage(runtime?: Runtime, usage?: Usage): Promise<void> {
    const size = this.contextSize(runtime);
    if (usage?.cost) this.cost += usage.cost;
    const used = usage ? usage.promptTokens + usage.completionTokens : estimateTokens(this.history);
    this.lastUsage = { used, size };
    await this.ports.sink.emit({ type: "usage", used, size, ...(this.cost > 0 ? { cost: this.cost } : {}) });
  }

  private uniqueToolCallId(id: string): string {
    let unique = id || `call_${crypto.randomUUID().slice(0, 12)}`;
    while (this.toolCallIds.has(unique)) unique = `call_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
    this.toolCallIds.add(unique);
    return unique;
  }

  private toolRunner(registry: ToolRegistry): ToolRunner {
    return {
      cwd: this.cwd,
      kindOf: (name) => registry.get(name)?.kind,
      parse: (call) => {
        const r = registry.parseCall(call.function.name, call.function.arguments);
        return r.ok ? { ok: true, args: r.args } : r;
      },
      run: async (call, args, signal) => {
        const tool = registry.get(call.function.name);
        if (!tool) return { output: `Unknown tool: ${call.function.name}`, failed: true };
        const ctx: ToolContext = {
          sessionId: this.id,
          toolCallId: call.id,
          cwd: this.cwd,
          signal,
          fs: this.ports.fs,
          shell: this.ports.shell,
          approver: this.approver,
          state: this.toolState,
          progress: (u) => this.ports.sink.emit({ type: "tool_progress", toolCallId: call.id, ...u }),
        };
        return tool.run(args as never, ctx);
      },
    };
  }

  /** The first user text, for titles and list previews. */
  firstUserText(): string {
    const first = this.history.find((m) => m.role === "user");
    return first ? textOf(first.content as never) : "";
  }
}
