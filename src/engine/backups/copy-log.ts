import { openDatabase, type SqliteDatabase } from '../../events/log/sqlite-database.js';
import { markPageGaps } from '../page-gaps.js';
import { offTheLoop } from './off-the-loop.js';

/**
 * The tables a managed backup keeps: the log, its keys, the store's secrets and meta, the
 * embedding cache (vectors, no text) and the remote erasures this node has applied (ids only). Everything else is a read model, rebuilt from the log on
 * restore, so an erasure never has plaintext to chase in a backup (ADR 29). A table added later
 * that is not derived from the log must be named here.
 */
export const keptTables: readonly string[] = ['events', 'streams', 'sealed_keys', 'sealed_keys_head', 'subject_keys', 'store_secrets', 'store_meta', 'embedding_cache', 'erasures_applied'];

/**
 * Copies the kept tables of the open store into a new file at `path`, in one read transaction (one
 * snapshot of the log): their schema as sqlite_master has it (indexes too), their rows, their
 * AUTOINCREMENT counters (a key id is never reused, even after a restore) and the schema version.
 * Read models are never copied, so nothing is dropped afterwards and no VACUUM rewrites the copy
 * (issue 17: the backup before an erasure cost two copies of the whole store and a VACUUM).
 */
export function copyLog(db: SqliteDatabase, path: string): void {
  db.prepare('ATTACH DATABASE ? AS backup').run(path);
  try {
    db.pragma('backup.journal_mode = DELETE');
    db.pragma('backup.secure_delete = ON');
    db.transaction(() => {
      const schema = db
        .prepare(`SELECT type, name, tbl_name AS tableName, sql FROM main.sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'index') ORDER BY type = 'index'`)
        .all() as { type: string; name: string; tableName: string; sql: string }[];
      const kept = schema.filter((entry) => keptTables.includes(entry.tableName));
      for (const entry of kept) db.exec(entry.sql.replace(/^CREATE (TABLE|UNIQUE INDEX|INDEX) /i, (m) => `${m}backup.`));
      for (const entry of kept) if (entry.type === 'table') db.exec(`INSERT INTO backup."${entry.name}" SELECT * FROM main."${entry.name}"`);
      const counters = db.prepare(`SELECT 1 FROM main.sqlite_master WHERE name = 'sqlite_sequence'`).get() !== undefined;
      if (counters && db.prepare(`SELECT 1 FROM backup.sqlite_master WHERE name = 'sqlite_sequence'`).get() !== undefined) {
        db.exec('DELETE FROM backup.sqlite_sequence');
        db.exec(`INSERT INTO backup.sqlite_sequence (name, seq) SELECT name, seq FROM main.sqlite_sequence WHERE name IN (SELECT value FROM json_each('${JSON.stringify(keptTables)}'))`);
      }
      db.pragma(`backup.user_version = ${Number(db.pragma('main.user_version', { simple: true }))}`);
      // A new file: clean if this SQLite zeroes page gaps, whatever the store's own mark says.
      markPageGaps(db, true, 'backup');
    })();
  } finally {
    db.exec('DETACH DATABASE backup');
  }
}

/** `copyLog` on a backup thread (off-the-loop.ts), with its own connection: one read snapshot of the log, as on this one. */
export const copyLogOffTheLoop = (db: SqliteDatabase, path: string): Promise<void> =>
  offTheLoop(db, { job: 'copy', store: db.name, path }, () => copyLog(db, path));

/** The thread's side: the copy on a connection of its own. */
export function copyLogOfFile(store: string, path: string): void {
  const db = openDatabase(store);
  try {
    copyLog(db, path);
  } finally {
    db.close();
  }
}
