import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { ensureHashChain } from '../events/log/sqlite-chain-schema.js';
import { createLogSchema } from '../events/log/sqlite-schema.js';

/**
 * One step of the SQLite schema (ADR 29). Steps run in order, once, in one transaction with the
 * new `PRAGMA user_version`. A step must work whatever tables other code created with
 * `CREATE TABLE IF NOT EXISTS` (those need no step); steps are for what that cannot say:
 * new columns, moved data, dropped or rebuilt tables. Read models need none: a projection's
 * version rebuilds it from the log. Events need none either: they are upcast when read.
 */
export interface Migration {
  readonly version: number;
  readonly name: string;
  up(db: SqliteDatabase): void;
}

export const storeMigrations: readonly Migration[] = [
  // Stores written before ADR 16 have no hash column: every row gets its link.
  { version: 1, name: 'events-hash-chain', up: (db) => { createLogSchema(db); ensureHashChain(db); } },
  // The package version the store was last opened with (ADR 29: a change takes a backup).
  { version: 2, name: 'store-meta', up: (db) => createStoreMeta(db) },
];

/** `schema`: `main`, or an attached file's name (a backup: one taken before schema 2 has none). */
export function createStoreMeta(db: SqliteDatabase, schema = 'main'): void {
  db.exec(`CREATE TABLE IF NOT EXISTS "${schema}".store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`);
}

export const currentSchemaVersion = (migrations: readonly Migration[] = storeMigrations): number => Math.max(0, ...migrations.map((m) => m.version));

export function schemaVersionOf(db: SqliteDatabase): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Whether the file holds a log with events: an empty store needs no backup before a migration. */
export function holdsEvents(db: SqliteDatabase): boolean {
  const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'`).get();
  return table !== undefined && db.prepare('SELECT 1 FROM events LIMIT 1').get() !== undefined;
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

export interface MigrationOutcome<B> {
  readonly from: number;
  readonly to: number;
  readonly applied: readonly string[];
  readonly backup: B | null;
}

export interface MigrateOptions<B> {
  readonly migrations?: readonly Migration[];
  /** The mandatory backup; when it fails, no step starts. */
  readonly backup: () => Promise<B>;
  /** Puts the backup back after a failed step (the caller closes and replaces the file). */
  readonly restore: (backup: B) => Promise<void>;
  readonly describe: (backup: B) => string;
}

/**
 * Brings the file's schema to the newest version: a backup first when the store holds events
 * (mandatory), then every pending step in one transaction. A failing step rolls back, the backup
 * is put back, and the error names the step; the store is never left half-migrated.
 */
export async function migrateStore<B>(db: SqliteDatabase, options: MigrateOptions<B>): Promise<MigrationOutcome<B> | null> {
  const migrations = [...(options.migrations ?? storeMigrations)].sort((a, b) => a.version - b.version);
  const from = schemaVersionOf(db);
  const pending = migrations.filter((m) => m.version > from);
  const last = pending.at(-1);
  if (!last) return null;
  let backup: B | null = null;
  if (holdsEvents(db)) {
    try {
      backup = await options.backup();
    } catch (error) {
      throw new MigrationError(`the backup before migrating schema ${from} -> ${last.version} failed, so no migration ran: ${(error as Error).message}`);
    }
  }
  let step = '';
  try {
    db.transaction(() => {
      for (const m of pending) {
        step = m.name;
        m.up(db);
      }
      db.pragma(`user_version = ${last.version}`);
    }).immediate();
  } catch (error) {
    const detail = `migration ${step} (schema ${from} -> ${last.version}) failed: ${(error as Error).message}`;
    if (!backup) throw new MigrationError(`${detail}; the store was empty and is left as it was`);
    await options.restore(backup);
    throw new MigrationError(`${detail}; the store was restored from backup ${options.describe(backup)}`);
  }
  return { from, to: last.version, applied: pending.map((m) => m.name), backup };
}

/** `schema` in these three: `main`, or an attached file's name (a backup being written). */
const hasMeta = (db: SqliteDatabase, schema: string): boolean =>
  db.prepare(`SELECT 1 FROM "${schema}".sqlite_master WHERE type = 'table' AND name = 'store_meta'`).get() !== undefined;

export function readMeta(db: SqliteDatabase, key: string, schema = 'main'): string | undefined {
  return hasMeta(db, schema) ? (db.prepare(`SELECT value FROM "${schema}".store_meta WHERE key = ?`).pluck().get(key) as string | undefined) : undefined;
}

export function writeMeta(db: SqliteDatabase, key: string, value: string, schema = 'main'): void {
  db.prepare(`INSERT INTO "${schema}".store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(key, value);
}

export function deleteMeta(db: SqliteDatabase, key: string, schema = 'main'): void {
  if (hasMeta(db, schema)) db.prepare(`DELETE FROM "${schema}".store_meta WHERE key = ?`).run(key);
}
