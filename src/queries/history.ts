import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import type { Subject } from '../projections/memory-events.js';

/** Reads the `memory_events` index: which log positions touched a memory or an atom. */
export function createHistoryQueries(db: SqliteDatabase, tableOf: (name: 'memory_events' | 'decay_batches') => string) {
  const table = (): string => tableOf('memory_events');
  return {
    /** Positions in ascending order; an id is looked up as a memory first, then as an atom. */
    positionsOf(id: string, kind?: Subject['kind']): { kind: Subject['kind']; positions: bigint[] } | undefined {
      for (const k of kind ? [kind] : (['memory', 'atom'] as const)) {
        // A memory's decays are in the batches whose id range holds it and whose ids name it.
        const decays = k === 'memory'
          ? ` UNION SELECT position FROM ${tableOf('decay_batches')} WHERE first_id <= :id AND last_id >= :id
              AND EXISTS (SELECT 1 FROM json_each(memory_ids) WHERE value = :id)`
          : '';
        const rows = db
          .prepare<[{ id: string; kind: string }], { position: number }>(
            `SELECT position FROM ${table()} WHERE subject_id = :id AND kind = :kind${decays} ORDER BY position`,
          )
          .all({ id, kind: k });
        if (rows.length > 0) return { kind: k, positions: rows.map((r) => BigInt(r.position)) };
      }
      return undefined;
    },
    /**
     * The ids of memories (or atoms) that start with `prefix`, at most `limit`, in id order. GLOB
     * (case-sensitive, its wildcards escaped) lets SQLite walk the primary key's range.
     */
    idsWithPrefix(prefix: string, kind: Subject['kind'], limit: number): string[] {
      const pattern = `${prefix.replace(/[*?[]/g, (c) => `[${c}]`)}*`;
      return db
        .prepare<[string, string, number], { subject_id: string }>(
          `SELECT DISTINCT subject_id FROM ${table()} WHERE subject_id GLOB ? AND kind = ? ORDER BY subject_id LIMIT ?`,
        )
        .all(pattern, kind, limit)
        .map((r) => r.subject_id);
    },
  };
}

export type HistoryQueries = ReturnType<typeof createHistoryQueries>;
