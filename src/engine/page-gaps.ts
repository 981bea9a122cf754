import { zeroesPageGaps, type SqliteDatabase } from '../events/log/sqlite-database.js';
import { createStoreMeta, deleteMeta, readMeta, writeMeta } from './migrations.js';

/**
 * Whether every page of a store file was written by a SQLite that zeroes the gaps a balance leaves
 * (ADR 19): then `secure_delete` alone removes a deleted row's bytes, and an erasure needs no VACUUM.
 * The mark in `store_meta` says so. It is set when the file starts empty or after a VACUUM by such a
 * SQLite, and dropped by any open whose SQLite does not zero gaps, or whose store was last opened by
 * another package version (an older one may have written with a SQLite that did not).
 */
const key = 'pageGaps';
const clean = 'zeroed';

/** `schema`: `main`, or the name of an attached file (a backup being written). */
export function markPageGaps(db: SqliteDatabase, zeroed: boolean, schema = 'main'): void {
  if (zeroed && zeroesPageGaps(db)) {
    // A backup taken before schema 2 has no store_meta: without the mark, every shred would vacuum it.
    createStoreMeta(db, schema);
    writeMeta(db, key, clean, schema);
  } else {
    deleteMeta(db, key, schema);
  }
}

/** Whether deletes on this connection leave no old cell bytes in the file once the WAL is emptied. */
export function pageGapsClean(db: SqliteDatabase): boolean {
  return zeroesPageGaps(db) && readMeta(db, key) === clean;
}

/**
 * What the next erasure of this file may rely on: a VACUUM by a SQLite that zeroes gaps leaves
 * every page clean, so it marks the file; `vacuum` runs only when the file is not known clean.
 */
export function scrubPageGaps(db: SqliteDatabase): { vacuumed: boolean } {
  if (pageGapsClean(db)) return { vacuumed: false };
  db.exec('VACUUM');
  markPageGaps(db, true);
  return { vacuumed: true };
}
