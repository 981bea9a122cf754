import type { SqliteDatabase } from '../events/log/sqlite-database.js';

/**
 * Runs a projection's write transaction without waiting for fsync (ADR 3): in WAL mode a commit
 * at synchronous=NORMAL can only be lost together with everything after it, and a projection's
 * rows and checkpoint commit together, so a lost commit is replayed from the log on the next
 * catch-up. The log's own appends keep the connection's level (FULL by default): every
 * acknowledged event is synced, and its fsync also syncs the projection commits before it.
 */
export function withoutFsync<T>(db: SqliteDatabase, work: () => T): T {
  // The level cannot change inside a transaction; an outer one decides for itself.
  if (db.inTransaction) return work();
  const level = db.pragma('synchronous', { simple: true }) as number;
  if (level <= 1) return work();
  db.pragma('synchronous = NORMAL');
  try {
    return work();
  } finally {
    db.pragma(`synchronous = ${level}`);
  }
}
