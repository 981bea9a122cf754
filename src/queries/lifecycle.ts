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

/** What the lifecycle reads of an active memory: its decay inputs, its age and scope. */
export interface LifecycleMemory {
  readonly memoryId: string;
  readonly importance: number;
  readonly accessCount: number;
  readonly lastAccessedAt: string | null;
  readonly createdAt: string;
  readonly status: string;
  readonly sessionId: string | null;
  readonly personaId: string | null;
  readonly userId: string | null;
  /** 1 when it was an original of a consolidation already (restored since, or the consolidation is unsettled). */
  readonly consolidated: number;
}

const memoryColumns = `memory_id AS memoryId, json_extract(metadata, '$.importance') AS importance,
  json_extract(metadata, '$.accessCount') AS accessCount, json_extract(metadata, '$.lastAccessedAt') AS lastAccessedAt,
  json_extract(metadata, '$.createdAt') AS createdAt, json_extract(metadata, '$.status') AS status,
  json_extract(metadata, '$.sessionId') AS sessionId, json_extract(metadata, '$.personaId') AS personaId,
  json_extract(metadata, '$.userId') AS userId`;

/** Reads the lifecycle projection (ticks done, consolidations not settled yet) and what ticks read of `documents`. */
export function createLifecycleQueries(db: SqliteDatabase, table: (name: 'lifecycle_ticks' | 'lifecycle_consolidations' | 'documents') => string) {
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
    /** Active memories written at or before `asOf` (ISO, UTC), by id: what a tick decays and a consolidation groups. */
    activeMemories(asOf: string): LifecycleMemory[] {
      return prepare(
        `SELECT ${memoryColumns} FROM ${table('documents')}
         WHERE json_extract(metadata, '$.status') = 'active' AND json_extract(metadata, '$.createdAt') <= ? ORDER BY memory_id`,
      ).all(asOf) as LifecycleMemory[];
    },
    /** Like activeMemories, with whether each was merged by a consolidation before (for the consolidation's candidates). */
    consolidationMemories(asOf: string): LifecycleMemory[] {
      return prepare(
        // d.memory_id: lifecycle_consolidations has a memory_id column of its own (the merged memory).
        `SELECT ${memoryColumns}, EXISTS (SELECT 1 FROM ${table('lifecycle_consolidations')} c WHERE c.original_id = d.memory_id) AS consolidated
         FROM ${table('documents')} d
         WHERE json_extract(metadata, '$.status') = 'active' AND json_extract(metadata, '$.createdAt') <= ? ORDER BY memory_id`,
      ).all(asOf) as LifecycleMemory[];
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
