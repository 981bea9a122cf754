import type { SqliteDatabase } from '../events/log/sqlite-database.js';

/**
 * A secret of this store (the signing key of exports, the cache's HMAC key), made on first use
 * and kept in the store file. Secrets are not projection rows: no event makes them, a replay never
 * touches them, and a backup copies them with the file.
 */
export function storeSecret(db: SqliteDatabase, name: string, make: () => Buffer): Buffer {
  // Get or create under the write lock, so two processes opening the store agree on one secret.
  return db
    .transaction((): Buffer => {
      const found = existingStoreSecret(db, name);
      if (found) return found;
      const value = make();
      db.prepare('INSERT INTO store_secrets (name, value, created_at) VALUES (?, ?, ?)').run(name, value, new Date().toISOString());
      return value;
    })
    .immediate();
}

/** The secret, when it exists already (nothing is created): the embedding cache asks before it migrates. */
export function existingStoreSecret(db: SqliteDatabase, name: string): Buffer | undefined {
  db.exec('CREATE TABLE IF NOT EXISTS store_secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL, created_at TEXT NOT NULL)');
  return db.prepare<[string], Buffer>('SELECT value FROM store_secrets WHERE name = ?').pluck().get(name);
}
