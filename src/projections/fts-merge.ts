import { withoutFsync } from '../events/log/durability.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { generationTable } from './generations.js';
import type { Projection } from './projection.js';
import { sliceBudgetMs, turn } from './turns.js';

/** A generation's FTS5 tables, by their physical names. */
export function ftsTablesOf(db: SqliteDatabase, projection: Projection, generation: number): string[] {
  const ddl = db.prepare<[string], string | null>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck();
  return projection.tables.map((t) => generationTable(t.name, generation)).filter((table) => /using fts5/i.test(ddl.get(table) ?? ''));
}

/**
 * Merges an FTS5 table's segments into one, a slice at a time (FTS5's 'merge' with a negative page
 * count is an incremental 'optimize'), a turn of the event loop between slices. A table built by a
 * replay or an import, page by page, holds a segment per commit merged level by level (8-10 at 10k
 * memories); each query looks a term up in every one of them. Merged, a recall's two FTS5 searches
 * cost 11% (BM25) and 21% (trigram) less, with the same rows and scores.
 */
export async function mergeSegmentsInSlices(db: SqliteDatabase, table: string, budgetMs = sliceBudgetMs, pause: () => Promise<void> = turn): Promise<void> {
  const merge = db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', ?)`);
  const changes = db.prepare<[], number>('SELECT total_changes()').pluck();
  let pages = 16;
  for (;;) {
    const started = performance.now();
    const before = changes.get() ?? 0;
    withoutFsync(db, () => merge.run(-pages));
    // FTS5's own test of whether a merge did anything: the command alone changes one row.
    if ((changes.get() ?? 0) - before < 2) return;
    const took = Math.max(0.05, performance.now() - started);
    pages = Math.max(4, Math.min(4096, 2 * pages, Math.floor((pages * budgetMs) / took)));
    await pause();
  }
}

/**
 * Whether a catch-up that applied `applied` events, leaving the generation at `after`, wrote
 * enough of it to merge its FTS5 tables: a replay from empty or an import as large as a quarter of
 * the store, not a write's few events (automerge keeps those in check; a merge rewrites the index).
 */
export const worthMerging = (applied: bigint, after: bigint): boolean => applied >= 1000n && applied * 4n >= after;
