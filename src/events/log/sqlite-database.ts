import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

export type SqliteDatabase = Database.Database;

export interface OpenDatabaseOptions {
  /** FULL keeps every acknowledged append through a power loss; NORMAL only through a crash. */
  readonly synchronous?: 'FULL' | 'NORMAL';
}

// The addon where the set-up builds it: better-sqlite3 otherwise asks the `bindings` package, which
// tries a dozen paths (~8 ms of every CLI start, ADR 26); elsewhere (another build layout) it still does.
let addon: string | null | undefined;
const nativeBinding = (): { nativeBinding?: string } => {
  if (addon === undefined) {
    try {
      addon = createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
    } catch {
      addon = null;
    }
  }
  return addon ? { nativeBinding: addon } : {};
};

/** A second, read-only connection to an existing store file (a backup's check, a digest's snapshot, the recall thread). */
export function openReadOnly(path: string): SqliteDatabase {
  return new Database(path, { readonly: true, fileMustExist: true, ...nativeBinding() });
}

/** Opens the one SQLite file that holds the log and the projections. */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): SqliteDatabase {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, nativeBinding());
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  db.pragma('foreign_keys = ON');
  // Deleted rows and freed pages are overwritten with zeros, so an erased subject's plaintext leaves the file (ADR 19).
  db.pragma('secure_delete = ON');
  return db;
}

let options: Set<string> | undefined;
const builtWith = (db: SqliteDatabase, option: string): boolean => {
  options ??= new Set((db.pragma('compile_options', { simple: false }) as { compile_options: string }[]).map((o) => o.compile_options));
  return options.has(option);
};

/**
 * Whether this process's SQLite zeroes the gap a b-tree balance leaves in a page under
 * secure_delete: the set-up patches the bundled SQLite to (`.ci/sqlite/patch.py`, ADR 19), and the
 * build names it among its compile options. Without it, deletes that must leave no byte behind
 * need a VACUUM.
 */
export const zeroesPageGaps = (db: SqliteDatabase): boolean => builtWith(db, 'LIVINGMEMORY_ZERO_GAPS');

/**
 * Whether an FTS5 `optimize` always drops deleted rows' terms: SQLite's own merge keeps them as
 * delete markers when its segments sat on one level below empty ones (the set-up's patch, ADR 19).
 * Without it, a table is rebuilt from its content after deletes that must leave no term behind.
 */
export const optimizeDropsDeletedTerms = (db: SqliteDatabase): boolean => builtWith(db, 'LIVINGMEMORY_FTS5_OLDEST');
