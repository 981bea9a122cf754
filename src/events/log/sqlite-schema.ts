import type { SqliteDatabase } from './sqlite-database.js';

/**
 * The log: `streams` holds each stream's revision for the compare-and-swap, `events` the events
 * themselves. UNIQUE(stream_id, stream_revision) catches a writer that slipped past the swap.
 */
export function createLogSchema(db: SqliteDatabase): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS streams (
      stream_id TEXT PRIMARY KEY,
      revision INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS events (
      global_position INTEGER PRIMARY KEY,
      stream_id TEXT NOT NULL,
      stream_revision INTEGER NOT NULL,
      event_id TEXT NOT NULL UNIQUE,
      type TEXT NOT NULL,
      schema_version INTEGER NOT NULL,
      data TEXT NOT NULL,
      metadata TEXT NOT NULL,
      UNIQUE (stream_id, stream_revision)
    );
  `);
}
