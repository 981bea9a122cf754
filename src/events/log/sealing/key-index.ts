import type { SqliteDatabase } from '../sqlite-database.js';
import { envelopeField } from './group.js';

/** The key ids of a stored data column's envelope, read by SQL (no decoding). */
const keyIdsOf = (column: string) => `json_each(${column}, '$."${envelopeField}".k')`;

/**
 * `sealed_keys`: which positions each key id sealed, one row per (key id, position), written in
 * the append's transaction (ADR 19, ADR 32). An erasure finds what a key sealed by this index
 * instead of scanning every row of `events`, so its cost follows the subject, not the log. It holds
 * numbers only and is part of the log's storage, like `streams`: it is not a read model.
 * `sealed_keys_head` says through which position it is complete; every append moves it.
 *
 * On open it catches up with the rows after that position (a store from before the index: the
 * whole log once; rows a build without it appended: those), in one transaction under the write
 * lock, so two processes opening at once do the work once. The usual open reads two numbers.
 * An index ahead of the log (its tail cut) drops what it holds past the head.
 */
export function createSealedKeyIndex(db: SqliteDatabase) {
  db.exec(`
    CREATE TABLE IF NOT EXISTS sealed_keys (
      key_id INTEGER NOT NULL,
      position INTEGER NOT NULL,
      PRIMARY KEY (key_id, position)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS sealed_keys_head (
      one INTEGER PRIMARY KEY CHECK (one = 1),
      position INTEGER NOT NULL
    );
  `);
  const headRow = db.prepare<[], { p: number }>('SELECT position AS p FROM sealed_keys_head');
  const indexedThrough = (): number => headRow.get()?.p ?? 0;
  const logHead = () => db.prepare<[], { p: number | null }>('SELECT max(global_position) AS p FROM events').get()?.p ?? 0;
  const setHead = db.prepare<[number]>('INSERT INTO sealed_keys_head (one, position) VALUES (1, ?) ON CONFLICT (one) DO UPDATE SET position = excluded.position');
  const catchUp = db.transaction(() => {
    db.prepare<[number]>(
      `INSERT OR IGNORE INTO sealed_keys (key_id, position)
       SELECT k.value, e.global_position FROM events e, ${keyIdsOf('e.data')} k
       WHERE e.global_position > ? AND json_type(e.data, '$."${envelopeField}".k') = 'array'`,
    ).run(indexedThrough());
    setHead.run(logHead());
  });
  // A log whose tail is gone: what the index says past the head names positions the next appends reuse.
  const dropAfter = db.prepare<[number]>('DELETE FROM sealed_keys WHERE position > ?');
  const cutTo = (head: number): void => {
    dropAfter.run(head);
    setHead.run(head);
  };
  if (indexedThrough() > logHead()) db.transaction(() => cutTo(logHead())).immediate();
  if (logHead() > indexedThrough()) catchUp.immediate();

  const insert = db.prepare<[number, number]>('INSERT INTO sealed_keys (key_id, position) VALUES (?, ?)');
  return {
    /** Before an append at `head` (inside its transaction): an index ahead of the log is cut back to it. */
    start(head: number): void {
      if (indexedThrough() > head) cutTo(head);
    },
    /** Records the key ids of a row an append writes (call inside its transaction). */
    record(position: number, keyIds: readonly number[]): void {
      for (const keyId of keyIds) insert.run(keyId, position);
    },
    /** The index is complete through `position`: the append's last row (call inside its transaction). */
    complete(position: number): void {
      setHead.run(position);
    },
    /** SQL selecting the positions sealed under any of the key ids in the JSON array bound at `?`. */
    positionsUnder: `SELECT position FROM sealed_keys WHERE key_id IN (SELECT value FROM json_each(?))`,
  };
}

export type SealedKeyIndex = ReturnType<typeof createSealedKeyIndex>;

/**
 * The positions an erasure of `keyIds` made unreadable, by the key index: sealed under one of them
 * and under no key destroyed before (those read as erased already, and were taken then).
 */
export function erasedPositions(db: SqliteDatabase, keyIds: readonly number[]): number[] {
  return db
    .prepare<{ keys: string }, number>(
      `SELECT DISTINCT s.position FROM sealed_keys s JOIN events e ON e.global_position = s.position
       WHERE s.key_id IN (SELECT value FROM json_each(@keys))
         AND NOT EXISTS (SELECT 1 FROM ${keyIdsOf('e.data')} k
                         WHERE k.value NOT IN (SELECT value FROM json_each(@keys)) AND k.value NOT IN (SELECT key_id FROM subject_keys))
       ORDER BY s.position`,
    )
    .pluck()
    .all({ keys: JSON.stringify(keyIds) });
}
