import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type SqliteDatabase = Database.Database;

export interface OpenDatabaseOptions {
  /** FULL keeps every acknowledged append through a power loss; NORMAL only through a crash. */
  readonly synchronous?: 'FULL' | 'NORMAL';
}

/** Opens the one SQLite file that holds the log and the projections. */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): SqliteDatabase {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  db.pragma('foreign_keys = ON');
  // Deleted rows and freed pages are overwritten with zeros, so an erased subject's plaintext leaves the file (ADR 19).
  db.pragma('secure_delete = ON');
  return db;
}
