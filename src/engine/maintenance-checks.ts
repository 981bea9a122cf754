import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import type { Indexes } from './indexes.js';

export interface ConsistencyReport {
  readonly documents: number;
  readonly fts: number;
  readonly vectors: number;
  readonly pendingVectors: number;
  /** Live memories missing from FTS, or FTS rows without a live memory. */
  readonly ftsMismatch: number;
  /** Live memories neither indexed nor pending in the vector index, or vectors of no live memory. */
  readonly vectorMismatch: number;
  /** Live memories without a graph entry, or entries of no live memory. */
  readonly graphMismatch: number;
  readonly graphVectors: number;
  readonly pendingGraphVectors: number;
  /** Graph entries neither indexed nor pending in the graph entry vector index, or vectors of no entry. */
  readonly graphVectorMismatch: number;
  readonly atomOrphans: number;
  readonly fingerprintChanged: boolean;
}

const column = (db: SqliteDatabase, sql: string): string[] => db.prepare(sql).pluck().all() as string[];

const symmetricDifference = (a: ReadonlySet<string>, b: ReadonlySet<string>): number =>
  [...a].filter((x) => !b.has(x)).length + [...b].filter((x) => !a.has(x)).length;

/** Compares every index with the live documents; cheap enough to run at every start. */
export function checkConsistency(db: SqliteDatabase, indexes: Indexes): ConsistencyReport {
  const t = (projection: string, table: string) => indexes.runner.liveTable(projection, table);
  const live = new Set(
    column(db, `SELECT memory_id FROM ${t('documents', 'documents')} WHERE json_extract(metadata, '$.status') NOT IN ('forgotten', 'erased')`),
  );
  const fts = new Set(column(db, `SELECT memory_id FROM ${t('fts', 'livingmemory_memories_fts')}`));
  const vectorIds = new Set([...indexes.vectors.ids(), ...indexes.vectors.pending().keys()]);
  const graphMemories = new Set(column(db, `SELECT DISTINCT memory_id FROM ${t('graph', 'graph_entries')}`));
  const entries = new Set(column(db, `SELECT entry_id FROM ${t('graph', 'graph_entries')}`));
  const entryVectorIds = new Set([...indexes.graphVectors.ids(), ...indexes.graphVectors.pending().keys()]);
  const atomMemories = column(db, `SELECT DISTINCT memory_id FROM ${t('atoms', 'memory_atoms')} WHERE status NOT IN ('forgotten', 'erased')`);
  return {
    documents: live.size,
    fts: fts.size,
    vectors: indexes.vectors.ids().length,
    pendingVectors: indexes.vectors.pending().size,
    ftsMismatch: symmetricDifference(live, fts),
    vectorMismatch: symmetricDifference(live, vectorIds),
    graphMismatch: symmetricDifference(live, graphMemories),
    graphVectors: indexes.graphVectors.ids().length,
    pendingGraphVectors: indexes.graphVectors.pending().size,
    graphVectorMismatch: symmetricDifference(entries, entryVectorIds),
    atomOrphans: atomMemories.filter((id) => !live.has(id)).length,
    fingerprintChanged: indexes.vectors.fingerprintChanged() || indexes.graphVectors.fingerprintChanged(),
  };
}

/** The flag that asks background maintenance for a full index rebuild; kept across restarts. */
export function createMaintenanceFlags(db: SqliteDatabase) {
  db.exec('CREATE TABLE IF NOT EXISTS maintenance_flags (name TEXT PRIMARY KEY, reason TEXT NOT NULL)');
  return {
    set: (name: string, reason: string) =>
      db.prepare('INSERT INTO maintenance_flags (name, reason) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET reason = excluded.reason').run(name, reason),
    get: (name: string) =>
      (db.prepare('SELECT reason FROM maintenance_flags WHERE name = ?').pluck().get(name) as string | undefined) ?? null,
    clear: (name: string) => db.prepare('DELETE FROM maintenance_flags WHERE name = ?').run(name),
  };
}
