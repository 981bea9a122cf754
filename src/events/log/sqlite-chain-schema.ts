import type { SqliteDatabase } from './sqlite-database.js';
import { chainHash, genesisHash, type ChainRow } from './hash-chain.js';

/** The columns a link covers, named as ChainRow names them. */
export const chainColumns = `global_position AS globalPosition, stream_id AS streamId, stream_revision AS streamRevision,
  event_id AS eventId, type, schema_version AS schemaVersion, data, metadata`;

export interface LinkedRow extends ChainRow {
  readonly hash: unknown;
}

/**
 * Gives `events` its `hash` column. A file written before the chain existed gets the column and
 * every row's link in one transaction under the write lock, so two processes opening it at once
 * migrate it once and no append lands between the column and its backfill.
 */
export function ensureHashChain(db: SqliteDatabase, pageSize = 1000): void {
  const hasColumn = db.prepare<[], { found: number }>(`SELECT 1 AS found FROM pragma_table_info('events') WHERE name = 'hash'`);
  if (hasColumn.get()) return;
  const migrate = db.transaction(() => {
    if (hasColumn.get()) return;
    // SQLite adds a NOT NULL column only with a default; an empty hash never matches a link, so verify reports it.
    db.exec(`ALTER TABLE events ADD COLUMN hash TEXT NOT NULL DEFAULT ''`);
    const page = db.prepare<[number, number], ChainRow>(
      `SELECT ${chainColumns} FROM events WHERE global_position > ? ORDER BY global_position LIMIT ?`,
    );
    const setHash = db.prepare('UPDATE events SET hash = ? WHERE global_position = ?');
    let previous = genesisHash;
    let after = 0;
    for (;;) {
      const rows = page.all(after, pageSize);
      for (const row of rows) {
        previous = chainHash(previous, row);
        setHash.run(previous, row.globalPosition);
        after = row.globalPosition;
      }
      if (rows.length < pageSize) return;
    }
  });
  migrate.immediate();
}
