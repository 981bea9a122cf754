import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { statementCache } from './statements.js';

export interface TickRecord {
  readonly date: string;
  readonly tickId: string;
  readonly asOf: string;
  readonly position: bigint;
  readonly affected: number;
  readonly atomTransitions: number;
}

export interface UnsettledOriginal {
  readonly consolidationId: string;
  readonly memoryId: string;
  readonly originalId: string;
  readonly retention: 'archive' | 'forget';
}

/** Reads the lifecycle projection: ticks done, consolidations not settled yet. */
export function createLifecycleQueries(db: SqliteDatabase, table: (name: 'lifecycle_ticks' | 'lifecycle_consolidations') => string) {
  const prepare = statementCache(db);
  const toTick = (r: { date: string; tick_id: string; as_of: string; position: number; affected: number; atom_transitions: number }): TickRecord => ({
    date: r.date, tickId: r.tick_id, asOf: r.as_of, position: BigInt(r.position), affected: r.affected, atomTransitions: r.atom_transitions,
  });
  return {
    /** The latest tick by date, if any. */
    lastTick(): TickRecord | undefined {
      const row = prepare(`SELECT * FROM ${table('lifecycle_ticks')} ORDER BY date DESC LIMIT 1`).get() as Parameters<typeof toTick>[0] | undefined;
      return row && toTick(row);
    },
    tick(date: string): TickRecord | undefined {
      const row = prepare(`SELECT * FROM ${table('lifecycle_ticks')} WHERE date = ?`).get(date) as Parameters<typeof toTick>[0] | undefined;
      return row && toTick(row);
    },
    ticks(): TickRecord[] {
      return (prepare(`SELECT * FROM ${table('lifecycle_ticks')} ORDER BY date`).all() as Parameters<typeof toTick>[0][]).map(toTick);
    },
    unsettled(): UnsettledOriginal[] {
      return prepare(
        `SELECT consolidation_id AS consolidationId, memory_id AS memoryId, original_id AS originalId, retention
         FROM ${table('lifecycle_consolidations')} WHERE settled = 0 ORDER BY position, original_id`,
      ).all() as UnsettledOriginal[];
    },
  };
}

export type LifecycleQueries = ReturnType<typeof createLifecycleQueries>;
