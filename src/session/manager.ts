import { basename } from "node:path";
import type { ChatMessage } from "../agent/messages.ts";
import { textOf } from "../agent/messages.ts";
import type { Services } from "../app/services.ts";
import type { SessionStore } from "./store.ts";
import { LiveSession } from "./live-session.ts";
import type { ClientPorts } from "./ports.ts";
import { settingsFromModelConfig, settingsToModelConfig, type SessionSettings } from "./settings.ts";
import { normalizeCwdForMatch, translateCwd } from "./cwd.ts";
import type { ReplayItem } from "./replay.ts";
import { DISPLAY_FROM_KEY } from "./lineage-keys.ts";
import type { AgentEvent } from "../agent/events.ts";
import { DomainError } from "./errors.ts";
import { isMode } from "./modes.ts";
import type { Mode } from "../approvals/edit-policy.ts";

export const LIST_PAGE_SIZE = 50;

export type ListedSession = { sessionId: string; cwd: string; title: string; updatedAt: string };

/** Live sessions by ACP id, restored from state.db on demand. */
export class SessionManager {
  private readonly sessions = new Map<string, LiveSession>();

  constructor(
    private readonly services: Services,
    private readonly portsFor: (sessionId: string) => ClientPorts,
  ) {}

  private store(): SessionStore {
    return this.services.store();
  }

  create(cwd: string, overrides: Partial<SessionSettings> = {}): LiveSession {
    const id = crypto.randomUUID();
    const settings: SessionSettings = { cwd: translateCwd(cwd), mode: this.defaultMode(), options: {}, ...overrides };
    this.store().createSession({ id, source: "acp", model: settings.model ?? null, modelConfig: settingsToModelConfig(settings) });
    const session = new LiveSession(id, settings, this.services, this.portsFor(id), { hermesId: id, history: [], title: null });
    this.sessions.set(id, session);
    return session;
  }

  /** config.yaml `acp.default_mode` for new sessions (default: ask before edits). */
  private defaultMode(): Mode {
    const cfg = this.services.config();
    const wanted = cfg.ok ? cfg.config.acp.default_mode : undefined;
    return isMode(wanted) ? wanted : "default";
  }

  /** The live session, restoring it from state.db; throws SESSION_NOT_FOUND for ids the client was never given. */
  get(id: string): LiveSession {
    const live = this.sessions.get(id);
    if (live) return live;
    const store = this.store();
    const row = store.getSession(id);
    if (!row || row.source !== "acp" || this.isContinuation(row.parentSessionId)) {
      throw new DomainError("SESSION_NOT_FOUND", `Session not found: ${id}`, { sessionId: id });
    }
    const tip = store.compressionTip(id);
    const history = store.loadMessages(tip).map((m) => m.message);
    const settings = settingsFromModelConfig(row.modelConfig, row.model);
    const session = new LiveSession(id, settings, this.services, this.portsFor(id), { hermesId: tip, history, title: row.title });
    this.sessions.set(id, session);
    return session;
  }

  /** Only sessions the client has opened in this process (new, load, resume, fork); closed ones are gone. */
  getLive(id: string): LiveSession {
    const live = this.sessions.get(id);
    if (!live) throw new DomainError("SESSION_NOT_FOUND", `Session not found or not loaded: ${id}`, { sessionId: id });
    return live;
  }

  findLive(id: string): LiveSession | undefined {
    return this.sessions.get(id);
  }

  /** Everything the user saw, as updates, oldest first (the display code loads with the first replay). */
  async replay(session: LiveSession): Promise<AgentEvent[]> {
    const { replayEvents, isCompactionSummary } = await import("./replay.ts");
    return [...replayEvents(this.transcript(session, isCompactionSummary), session.cwd)];
  }

  private isContinuation(parentId: string | null): boolean {
    if (!parentId) return false;
    return this.store().getSession(parentId)?.endReason === "compression";
  }

  /**
   * The conversation as the user saw it: every message of the compression chain, oldest first. A
   * continuation starts with the compressed context; of that, only the summary is new to the user.
   */
  transcript(session: LiveSession, isSummary: (m: ChatMessage) => boolean): ReplayItem[] {
    const store = this.store();
    const items: ReplayItem[] = [];
    for (const [i, hermesId] of store.lineage(session.id).entries()) {
      const displayFrom = i === 0 ? 0 : Number(store.getSession(hermesId)?.modelConfig[DISPLAY_FROM_KEY] ?? 0);
      for (const [index, m] of store.loadMessages(hermesId).entries()) {
        if (index < displayFrom && !isSummary(m.message)) continue;
        items.push({ message: m.message, messageId: `${hermesId}:${m.rowId}` });
      }
    }
    return items;
  }

  updateCwd(session: LiveSession, cwd: string): void {
    const translated = translateCwd(cwd);
    if (translated === session.settings.cwd) return;
    session.settings = { ...session.settings, cwd: translated };
    session.saveSettings();
  }

  fork(source: LiveSession, cwd: string): LiveSession {
    const fork = this.create(cwd, {
      mode: source.settings.mode,
      options: { ...source.settings.options },
      ...(source.settings.provider ? { provider: source.settings.provider } : {}),
      ...(source.settings.model ? { model: source.settings.model } : {}),
      ...(source.settings.baseUrl ? { baseUrl: source.settings.baseUrl } : {}),
      ...(source.settings.apiMode ? { apiMode: source.settings.apiMode } : {}),
    });
    const copy: ChatMessage[] = structuredClone(source.history);
    if (copy.length) this.store().appendMessages(fork.hermesId, copy);
    fork.history.push(...copy);
    return fork;
  }

  /** Stops the session's work and forgets it in memory; the history stays on disk. */
  close(id: string): void {
    const live = this.sessions.get(id);
    if (live) {
      live.dispose();
      this.sessions.delete(id);
      return;
    }
    const row = this.store().getSession(id);
    if (!row || row.source !== "acp") throw new DomainError("SESSION_NOT_FOUND", `Session not found: ${id}`, { sessionId: id });
  }

  /** Removes the session and its compression continuations; unknown ids succeed silently. */
  delete(id: string): void {
    this.sessions.get(id)?.dispose();
    this.sessions.delete(id);
    const store = this.store();
    const row = store.getSession(id);
    if (!row || row.source !== "acp") return;
    for (const hermesId of store.lineage(id).reverse()) store.deleteSession(hermesId);
  }

  list(filterCwd?: string | null): ListedSession[] {
    const rows = this.store().listSessions({ source: "acp" });
    const wanted = filterCwd ? normalizeCwdForMatch(filterCwd) : null;
    const out: ListedSession[] = [];
    for (const row of rows) {
      const settings = settingsFromModelConfig(row.modelConfig, row.model);
      if (wanted && normalizeCwdForMatch(settings.cwd) !== wanted) continue;
      const live = this.sessions.get(row.id);
      const title = row.title || live?.title || this.previewTitle(live) || basename(settings.cwd) || "New thread";
      out.push({ sessionId: row.id, cwd: settings.cwd, title, updatedAt: new Date(row.lastActive * 1000).toISOString() });
    }
    out.sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0));
    return out;
  }

  private previewTitle(live: LiveSession | undefined): string {
    if (!live) return "";
    const first = live.history.find((m) => m.role === "user");
    return first && first.role === "user" ? textOf(first.content).replace(/\s+/g, " ").trim().slice(0, 100) : "";
  }
}
