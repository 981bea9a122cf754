import type { SqliteDatabase } from '../events/log/sqlite-database.js';

/**
 * Secrets of the store (the embedding cache's HMAC key, the signing key): beside the log, never
 * derived from events nor replayed, like the subject keys; a backup copies them with the file.
 */
export function storeSecret(db: SqliteDatabase, name: string, make: () => Buffer): Buffer {
  db.exec('CREATE TABLE IF NOT EXISTS store_secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL, created_at TEXT NOT NULL)');
  const read = db.prepare<[string], Buffer>('SELECT value FROM store_secrets WHERE name = ?').pluck();
  // Get or create under the write lock: two processes opening a new store agree on one secret.
  return db.transaction((): Buffer => {
    const found = read.get(name);
    if (found) return found;
    const value = make();
    db.prepare('INSERT INTO store_secrets (name, value, created_at) VALUES (?, ?, ?)').run(name, value, new Date().toISOString());
    return value;
  }).immediate();
}

/** The secret, when it exists already (nothing is created). */
export function existingStoreSecret(db: SqliteDatabase, name: string): Buffer | undefined {
  db.exec('CREATE TABLE IF NOT EXISTS store_secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL, created_at TEXT NOT NULL)');
  return db.prepare<[string], Buffer>('SELECT value FROM store_secrets WHERE name = ?').pluck().get(name);
}
