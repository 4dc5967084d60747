// The session store: Hermes' state.db (SessionDB schema v16), shared with Hermes itself.
// Rules followed (state-db-schema.md §9): keep WAL, explicit column lists, targeted UPDATEs,
// never touch schema or FTS tables of an existing file, counters in the same transaction.
import { Database, type Statement } from "bun:sqlite";
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "zod";
import type { ChatMessage } from "../agent/messages.ts";
import {
  fromMessageRow,
  storedMessageRow,
  toMessageRow,
  toolCallCountOf,
} from "./message-codec.ts";
import schemaSql from "./schema.sql" with { type: "text" };
import {
  BRANCHED_FROM,
  DELEGATE_FROM,
  encodeModelConfig,
  MESSAGE_READ_COLUMNS,
  MESSAGE_WRITE_COLUMNS,
  parseModelConfig,
  SESSION_COLUMNS,
  text,
  toSessionRow,
  type NewSession,
  type SessionListRow,
  type SessionPatch,
  type SessionRow,
  type StoredMessage,
  type StoreOptions,
} from "./store-rows.ts";
import { runWrite } from "./store-write.ts";

export { newHermesSessionId, type NewSession, type SessionListRow, type SessionPatch, type SessionRow, type StoredMessage } from "./store-rows.ts";
import { escapeLike, lineageBase, nextTitleInLineage, sanitizeTitle, uniqueTitle } from "./titles.ts";

export const SCHEMA_VERSION = 16;
const MAX_CHAIN_STEPS = 100;

// Small row shapes, built once: built per call, they made persisting a message ~0.24 ms instead of ~0.20.
const ModelConfigRow = z.object({ model_config: text });
const TimestampRow = z.object({ ts: z.number() });
const ListExtraRow = z.object({ last_message: z.number().nullable().catch(null), tip_id: z.string() });
const IdRow = z.object({ id: z.string() });

export class SessionStore {
  private closed = false;
  private readonly sessionCols: Set<string>;
  private readonly messageCols: Set<string>;
  private readonly sessionSelect: string;

  private constructor(
    private readonly db: Database,
    readonly path: string,
    private readonly now: () => number,
  ) {
    this.sessionCols = this.columnsOf("sessions");
    this.messageCols = this.columnsOf("messages");
    this.sessionSelect = Object.entries(SESSION_COLUMNS)
      .map(([col, fallback]) => (this.sessionCols.has(col) ? `s.${col}` : `${fallback} AS ${col}`))
      .join(", ");
  }

  /** Opens (creating with the exact v16 layout when absent) the state.db at `path`. */
  static open(path: string, options: StoreOptions = {}): SessionStore {
    const fresh = !existsSync(path) || statSync(path).size === 0;
    if (fresh) mkdirSync(dirname(path), { recursive: true });
    const db = new Database(path, { create: true });
    try {
      db.run("PRAGMA busy_timeout = 5000");
      // Only a file we create gets WAL: an existing file keeps whatever mode Hermes chose (NFS fallback).
      if (fresh) {
        try {
          db.run("PRAGMA journal_mode = WAL");
        } catch {
          // journal_mode stays DELETE, as Hermes' apply_wal_with_fallback does on network filesystems.
        }
      }
      db.run("PRAGMA foreign_keys = ON");
      // In WAL, NORMAL never corrupts and survives process crashes; it skips an fsync per commit
      // (a power cut may lose the last turns). Per connection: the file is not changed.
      if (db.query("PRAGMA journal_mode").values()[0]?.[0] === "wal") db.run("PRAGMA synchronous = NORMAL");
      SessionStore.ensureSchema(db);
      // Conversations are private: like Hermes, keep a file we created (and its sidecars) at 0600.
      if (fresh) for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
    } catch (error) {
      db.close(false);
      throw error;
    }
    return new SessionStore(db, path, options.clock ?? (() => Date.now() / 1000));
  }

  private static ensureSchema(db: Database): void {
    const has = (name: string) =>
      db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) != null;
    // An existing file is only read here, so opening it takes no write lock.
    if (!has("sessions")) {
      runWrite(db, () => db.run(schemaSql)); // all IF NOT EXISTS; inserts version 16 only if absent
    } else if (has("schema_version") && db.query("SELECT 1 FROM schema_version LIMIT 1").get() == null) {
      runWrite(db, () =>
        db.run("INSERT INTO schema_version (version) SELECT ? WHERE NOT EXISTS (SELECT 1 FROM schema_version)", [SCHEMA_VERSION]),
      );
    }
  }

  private columnsOf(table: string): Set<string> {
    const rows = this.db.query(`SELECT name FROM pragma_table_info('${table}')`).all();
    return new Set(rows.flatMap((r) => (typeof r === "object" && r && "name" in r && typeof r.name === "string" ? [r.name] : [])));
  }

  private write<T>(fn: () => T): T {
    if (this.closed) throw new Error("SessionStore is closed");
    return runWrite(this.db, fn);
  }

  private readSession(id: string): SessionRow | null {
    return toSessionRow(this.db.query(`SELECT ${this.sessionSelect} FROM sessions s WHERE s.id = ?`).get(id));
  }

  createSession(row: NewSession): void {
    this.write(() => {
      const title = row.title === undefined ? null : this.uniqueFreeTitle(sanitizeTitle(row.title), row.id);
      this.db
        .query(
          `INSERT OR IGNORE INTO sessions (id, source, model, model_config, parent_session_id, title, started_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(row.id, row.source, row.model ?? null, encodeModelConfig(row.modelConfig), row.parentSessionId ?? null, title, row.startedAt ?? this.now());
    });
  }

  getSession(id: string): SessionRow | null {
    return this.readSession(id);
  }

  updateSession(id: string, patch: SessionPatch): void {
    this.write(() => {
      const sets: string[] = [];
      const values: (string | null)[] = [];
      const set = (col: string, value: string | null | undefined) => {
        if (value === undefined || !this.sessionCols.has(col)) return;
        sets.push(`${col} = ?`);
        values.push(value);
      };
      set("model", patch.model);
      set("billing_provider", patch.billingProvider);
      set("billing_base_url", patch.billingBaseUrl);
      if (patch.modelConfig) {
        const stored = this.db.query("SELECT model_config FROM sessions WHERE id = ?").get(id);
        const raw = ModelConfigRow.safeParse(stored);
        const merged = { ...parseModelConfig(raw.success ? raw.data.model_config : null), ...patch.modelConfig };
        set("model_config", encodeModelConfig(merged));
      }
      if (sets.length === 0) return;
      this.db.query(`UPDATE sessions SET ${sets.join(", ")} WHERE id = ?`).run(...values, id);
    });
  }

  /** Appends in one transaction with counters; cost is independent of the session's length. */
  appendMessages(sessionId: string, messages: ChatMessage[]): number[] {
    if (messages.length === 0) return [];
    const cols = MESSAGE_WRITE_COLUMNS.filter((c) => this.messageCols.has(c));
    const insert = this.db.query(`INSERT INTO messages (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`);
    return this.write(() => {
      // One index seek on idx_messages_session (session_id, timestamp): O(log n), whatever the length.
      const last = TimestampRow.safeParse(
        this.db.query("SELECT timestamp AS ts FROM messages WHERE session_id = ? ORDER BY timestamp DESC LIMIT 1").get(sessionId),
      );
      let timestamp = last.success ? last.data.ts : -Infinity;
      const now = this.now();
      const ids: number[] = [];
      let toolCalls = 0;
      for (const message of messages) {
        // Strictly increasing even within one millisecond: Hermes orders by (timestamp, id).
        timestamp = Math.max(now, timestamp + 1e-6);
        const row: Record<string, string | number | null> = { ...toMessageRow(message), session_id: sessionId, timestamp };
        const result = insert.run(...cols.map((c) => row[c] ?? null));
        ids.push(Number(result.lastInsertRowid));
        toolCalls += toolCallCountOf(message);
      }
      this.db
        .query(
          `UPDATE sessions SET message_count = COALESCE(message_count, 0) + ?,
             tool_call_count = COALESCE(tool_call_count, 0) + ? WHERE id = ?`,
        )
        .run(messages.length, toolCalls, sessionId);
      return ids;
    });
  }

  /** Active rows in conversation order; undecodable rows and unknown roles are skipped. */
  loadMessages(sessionId: string): StoredMessage[] {
    const cols = MESSAGE_READ_COLUMNS.map((c) => (this.messageCols.has(c) ? c : `NULL AS ${c}`)).join(", ");
    const active = this.messageCols.has("active") ? "AND active = 1" : "";
    const rows = this.db
      .query(`SELECT ${cols} FROM messages WHERE session_id = ? ${active} ORDER BY timestamp, id`)
      .all(sessionId);
    const out: StoredMessage[] = [];
    for (const raw of rows) {
      const row = storedMessageRow(raw);
      const message = row && fromMessageRow(row);
      if (row && message) out.push({ rowId: row.id, timestamp: row.timestamp, message });
    }
    return out;
  }

  /** /reset: hides the transcript as Hermes' rewound rows (active=0, compacted=0); deletes nothing. */
  deactivateMessages(sessionId: string): void {
    this.write(() => {
      const compacted = this.messageCols.has("compacted") ? ", compacted = 0" : "";
      this.db.query(`UPDATE messages SET active = 0${compacted} WHERE session_id = ? AND active = 1`).run(sessionId);
      this.db.query("UPDATE sessions SET message_count = 0, tool_call_count = 0 WHERE id = ?").run(sessionId);
    });
  }

  /**
   * Picker rows for `source`: roots and branches (not archived, not delegate runs, not
   * compression continuations), one entry per compression chain, newest activity first.
   */
  listSessions(opts: { source: string }): SessionListRow[] {
    const archived = this.sessionCols.has("archived") ? "AND COALESCE(s.archived, 0) = 0" : "";
    const sql = `
      WITH RECURSIVE
      roots(id) AS (
        SELECT s.id FROM sessions s LEFT JOIN sessions p ON p.id = s.parent_session_id
        WHERE s.source = ? ${archived}
          AND (${DELEGATE_FROM.replaceAll("%", "s")}) IS NULL
          AND (s.parent_session_id IS NULL
               OR (${BRANCHED_FROM.replaceAll("%", "s")}) IS NOT NULL
               OR p.end_reason = 'branched')
      ),
      chain(root_id, id, depth) AS (
        SELECT id, id, 0 FROM roots
        UNION ALL
        SELECT chain.root_id, c.id, chain.depth + 1
        FROM chain JOIN sessions p ON p.id = chain.id JOIN sessions c ON c.parent_session_id = p.id
        WHERE p.end_reason = 'compression' AND c.started_at >= p.ended_at AND chain.depth < ${MAX_CHAIN_STEPS}
      ),
      agg AS (
        SELECT chain.root_id AS root_id,
               SUM(COALESCE(cs.message_count, 0)) AS total_messages,
               MAX((SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = chain.id)) AS last_message
        FROM chain JOIN sessions cs ON cs.id = chain.id
        GROUP BY chain.root_id
      ),
      -- SQLite's bare column with a single MAX(): the deepest, then latest, member is the tip.
      tips AS (
        SELECT chain.root_id AS root_id, chain.id AS tip_id, MAX(chain.depth * 1e12 + cs.started_at) AS tip_rank
        FROM chain JOIN sessions cs ON cs.id = chain.id
        GROUP BY chain.root_id
      )
      SELECT ${this.sessionSelect}, agg.last_message AS last_message, tips.tip_id AS tip_id
      FROM agg JOIN tips ON tips.root_id = agg.root_id JOIN sessions s ON s.id = agg.root_id
      WHERE agg.total_messages > 0
      ORDER BY COALESCE(agg.last_message, s.started_at) DESC, s.id`;
    const out: SessionListRow[] = [];
    for (const raw of this.db.query(sql).all(opts.source)) {
      const row = toSessionRow(raw);
      const more = ListExtraRow.safeParse(raw);
      if (!row || !more.success) continue;
      out.push({ ...row, lastActive: more.data.last_message ?? row.startedAt, tipId: more.data.tip_id });
    }
    return out;
  }

  /** Hermes' get_compression_tip: follow continuations forward (≤ 100 steps, cycle-safe). */
  compressionTip(id: string): string {
    const lineage = this.lineage(id);
    return lineage[lineage.length - 1] ?? id;
  }

  /** `id`, then each compression continuation after it, up to the tip. */
  lineage(id: string): string[] {
    const next = this.db.query(
      `SELECT id FROM sessions WHERE parent_session_id = ?1
         AND started_at >= (SELECT ended_at FROM sessions WHERE id = ?1 AND end_reason = 'compression')
       ORDER BY started_at DESC LIMIT 1`,
    );
    const chain = [id];
    const seen = new Set(chain);
    let current = id;
    for (let step = 0; step < MAX_CHAIN_STEPS; step++) {
      const row = IdRow.safeParse(next.get(current));
      if (!row.success || seen.has(row.data.id)) break;
      current = row.data.id;
      seen.add(current);
      chain.push(current);
    }
    return chain;
  }

  /** First reason wins (only when ended_at IS NULL), as in Hermes. */
  endSession(id: string, reason: string): void {
    this.write(() => this.endStatement().run(this.now(), reason, id));
  }

  private endStatement(): Statement {
    return this.db.query("UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL");
  }

  /** Hermes' session split: end `oldId` with 'compression', then create its continuation `newId`. */
  rotateForCompression(
    oldId: string,
    newId: string,
    opts: { source: string; model?: string | null; modelConfig?: Record<string, unknown>; messages?: ChatMessage[] },
  ): void {
    this.write(() => {
      this.endStatement().run(this.now(), "compression", oldId);
      const old = this.readSession(oldId);
      if (!old) throw new Error(`cannot rotate unknown session ${oldId}`);
      if (old.endReason !== "compression" || old.endedAt == null) {
        throw new Error(`cannot rotate session ${oldId}: it already ended with '${old.endReason}'`);
      }
      const title = old.title == null ? null : this.lineageTitle(old.title);
      this.db
        .query(
          `INSERT INTO sessions (id, source, model, model_config, parent_session_id, title, started_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(newId, opts.source, opts.model ?? null, encodeModelConfig(opts.modelConfig), oldId, title, Math.max(this.now(), old.endedAt));
      if (opts.messages?.length) this.appendMessages(newId, opts.messages);
    });
  }

  private lineageTitle(title: string): string {
    const base = lineageBase(title);
    const existing = this.db
      .query("SELECT title FROM sessions WHERE title = ? OR title LIKE ? ESCAPE '\\'")
      .all(base, `${escapeLike(base)} #%`)
      .flatMap((r) => (typeof r === "object" && r && "title" in r && typeof r.title === "string" ? [r.title] : []));
    return this.uniqueFreeTitle(nextTitleInLineage(title, existing), null) ?? title;
  }

  private uniqueFreeTitle(title: string | null, ownerId: string | null): string | null {
    if (title == null) return null;
    const taken = this.db.query("SELECT 1 FROM sessions WHERE title = ? AND id IS NOT ?");
    return uniqueTitle(title, (candidate) => taken.get(candidate, ownerId) != null);
  }

  /** Sanitised, made unique with " #N"; returns what was stored (null when cleared or the row is unknown). */
  setTitle(id: string, title: string): string | null {
    return this.write(() => {
      const stored = this.uniqueFreeTitle(sanitizeTitle(title), id);
      const result = this.db.query("UPDATE sessions SET title = ? WHERE id = ?").run(stored, id);
      return result.changes > 0 ? stored : null;
    });
  }

  /**
   * Hermes' delete_session order. Compression continuations and branches survive with their
   * parent link nulled (they become roots), exactly as in Hermes; `_delegate_from` runs go with it.
   */
  deleteSession(id: string): void {
    this.write(() => {
      const delegates = this.db
        .query(`SELECT s.id AS id FROM sessions s WHERE s.parent_session_id = ? AND (${DELEGATE_FROM.replaceAll("%", "s")}) IS NOT NULL`)
        .all(id)
        .flatMap((r) => (typeof r === "object" && r && "id" in r && typeof r.id === "string" ? [r.id] : []));
      const unlink = this.db.query("UPDATE sessions SET parent_session_id = NULL WHERE parent_session_id = ?");
      const dropMessages = this.db.query("DELETE FROM messages WHERE session_id = ?");
      const dropRow = this.db.query("DELETE FROM sessions WHERE id = ?");
      for (const child of delegates) {
        unlink.run(child); // a delegate's own children would otherwise fail the foreign key
        dropMessages.run(child);
        dropRow.run(child);
      }
      unlink.run(id);
      dropMessages.run(id);
      dropRow.run(id);
    });
  }

  integrityCheck(): string {
    return this.db
      .query("PRAGMA integrity_check")
      .values()
      .map((r) => String(r[0]))
      .join("\n");
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.db.run("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch {
      // Another connection may hold the WAL; SQLite checkpoints on a later close.
    }
    this.db.close(false);
  }
}

/** BEGIN IMMEDIATE … COMMIT, retried with a short random sleep on SQLITE_BUSY like Hermes. */
