import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './sqlite-database.js';

// Prepared once per connection: db.pragma() prepares a statement per call, and a replay in parts
// calls this thousands of times; each statement's native memory waited for a GC that rarely came.
const pragmas = new WeakMap<SqliteDatabase, { level: Statement; set: Map<number, Statement> }>();

function pragmasOf(db: SqliteDatabase) {
  let found = pragmas.get(db);
  if (!found) pragmas.set(db, (found = { level: db.prepare('PRAGMA synchronous').pluck(), set: new Map() }));
  return found;
}

/** The connection's `synchronous` level (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA). */
export const syncLevel = (db: SqliteDatabase): number => pragmasOf(db).level.get() as number;

function setLevel(db: SqliteDatabase, level: number): void {
  const { set } = pragmasOf(db);
  let statement = set.get(level);
  if (!statement) set.set(level, (statement = db.prepare(`PRAGMA synchronous = ${level}`)));
  statement.run();
}

/**
 * Runs a projection's write transaction without waiting for fsync (ADR 3): in WAL mode a commit
 * at synchronous=NORMAL can only be lost together with everything after it, and a projection's
 * rows and checkpoint commit together, so a lost commit is replayed from the log on the next
 * catch-up. The log's appends are acknowledged only once the WAL is synced (wal-sync.ts): every
 * acknowledged event is on the disk, and that sync also covers the projection commits before it.
 */
export function withoutFsync<T>(db: SqliteDatabase, work: () => T): T {
  // The level cannot change inside a transaction; an outer one decides for itself.
  if (db.inTransaction) return work();
  const level = syncLevel(db);
  if (level <= 1) return work();
  setLevel(db, 1);
  try {
    return work();
  } finally {
    setLevel(db, level);
  }
}
