import { createRequire } from 'node:module';
import { openDatabase, type SqliteDatabase } from '../../events/log/sqlite-database.js';
import { threadScript } from '../../events/thread-script.js';
import { markPageGaps } from '../page-gaps.js';

// worker_threads is loaded at the first backup: a command that takes none never loads it (ADR 26).
const lazyRequire = createRequire(import.meta.url);

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

/**
 * `copyLog` on a thread of its own, with its own connection to the store's file (one read snapshot
 * of the log, as on this one): at 10k memories the copy held the event loop for 735 ms in one step,
 * seconds at 100k, before every erasure (issue 17). On this thread when no thread script is built or
 * the store has no file another connection could open.
 */
export async function copyLogOffTheLoop(db: SqliteDatabase, path: string): Promise<void> {
  const script = db.memory ? null : threadScript(import.meta.url, 'copy-log-thread.js');
  if (!script) return copyLog(db, path);
  const { Worker } = lazyRequire('node:worker_threads') as typeof import('node:worker_threads');
  const worker = new Worker(script, { workerData: { store: db.name, path } });
  try {
    await new Promise<void>((resolve, reject) => {
      worker.once('message', (m: { ok: true } | { ok: false; message: string }) => (m.ok ? resolve() : reject(new Error(m.message))));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the backup's copy thread stopped (exit ${code})`)));
    });
  } finally {
    void worker.terminate();
  }
}

/** The thread's side: the copy on a connection of its own. */
export function copyLogOfFile(store: string, path: string): void {
  const db = openDatabase(store);
  try {
    copyLog(db, path);
  } finally {
    db.close();
  }
}
