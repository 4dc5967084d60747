// Write transactions as Hermes runs them: BEGIN IMMEDIATE, retried on SQLITE_BUSY with a short random sleep.
import { SQLiteError, type Database } from "bun:sqlite";

const BUSY_RETRIES = 15;

function isBusy(error: unknown): boolean {
  return error instanceof SQLiteError && /^SQLITE_(BUSY|LOCKED)/.test(error.code ?? "");
}

export function runWrite<T>(db: Database, fn: () => T): T {
  // Nested writes join the enclosing transaction (e.g. rotation + the continuation's first messages).
  if (db.inTransaction) return fn();
  for (let attempt = 0; ; attempt++) {
    try {
      db.run("BEGIN IMMEDIATE");
    } catch (error) {
      if (isBusy(error) && attempt < BUSY_RETRIES) {
        Bun.sleepSync(20 + Math.random() * 130);
        continue;
      }
      throw error;
    }
    try {
      const result = fn();
      db.run("COMMIT");
      return result;
    } catch (error) {
      if (db.inTransaction) db.run("ROLLBACK");
      if (isBusy(error) && attempt < BUSY_RETRIES) {
        Bun.sleepSync(20 + Math.random() * 130);
        continue;
      }
      throw error;
    }
  }
}
