// The process-wide set of MCP connections. Sessions that name the same server share one connection
// (one process for stdio); the last session to let go closes it. A connection that dies leaves the pool
// at once, so the next session to ask for that server gets a fresh start.
import { McpConnection } from "./connection.ts";
import { specKey, type McpServerSpec } from "./server-spec.ts";

type Entry = { connection: McpConnection; holders: Set<string> };

export class McpPool {
  readonly #entries = new Map<string, Entry>();

  /**
   * The shared connection for `spec`, with `sessionId` counted as a holder (once, however often it asks).
   * Resolves when the connection is ready or has failed; never rejects.
   */
  async acquire(spec: McpServerSpec, sessionId: string): Promise<McpConnection> {
    const key = specKey(spec);
    let entry = this.#entries.get(key);
    if (!entry) {
      const connection = new McpConnection(key, spec);
      const created: Entry = { connection, holders: new Set() };
      connection.onDead = () => this.#retire(key, created);
      this.#entries.set(key, created);
      entry = created;
    }
    entry.holders.add(sessionId);
    await entry.connection.ready;
    return entry.connection;
  }

  /**
   * Drops `sessionId` from every connection it holds, except the keys in `keep`, and closes the
   * connections nobody holds any more. Resolves once those are closed (processes gone).
   */
  async release(sessionId: string, keep: ReadonlySet<string> = new Set()): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const [key, entry] of this.#entries) {
      if (keep.has(key) || !entry.holders.delete(sessionId)) continue;
      if (entry.holders.size === 0) {
        this.#entries.delete(key);
        closing.push(entry.connection.close());
      }
    }
    await Promise.all(closing);
  }

  /** At exit: closes every connection, held or not. */
  async closeAll(): Promise<void> {
    const all = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(all.map((entry) => entry.connection.close()));
  }

  /** How many sessions hold the connection for `spec` (0 when none is pooled). For diagnostics and tests. */
  holders(spec: McpServerSpec): number {
    return this.#entries.get(specKey(spec))?.holders.size ?? 0;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** A dead connection stays with its holders (its tools explain the failure) but leaves the pool. */
  #retire(key: string, entry: Entry): void {
    if (this.#entries.get(key) === entry) this.#entries.delete(key);
    void entry.connection.close();
  }
}

/** The one pool of this agent process. */
export const mcpPool = new McpPool();
