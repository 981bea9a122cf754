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

/** What a tick reads of the active memories, one column per field (the decider's DecayColumns). */
export interface DecayInputColumns {
  readonly memoryIds: string[];
  readonly importance: number[];
  readonly accessCount: number[];
  readonly lastAccessedAt: (string | null)[];
}

/** What the below-threshold policy reads of an active memory (the decider's PolicyInput). */
export interface PolicyRow {
  readonly memoryId: string;
  readonly importance: number;
  readonly createdAt: string;
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

const memoryColumns = `v.memory_id AS memoryId, v.importance, v.access_count AS accessCount, v.last_accessed_at AS lastAccessedAt,
  v.created_at AS createdAt, v.status, json_extract(d.metadata, '$.sessionId') AS sessionId,
  json_extract(d.metadata, '$.personaId') AS personaId, json_extract(d.metadata, '$.userId') AS userId`;

/** Reads the lifecycle projection (ticks done, consolidations not settled yet) and what ticks read of `documents`. */
export function createLifecycleQueries(db: SqliteDatabase, table: (name: 'lifecycle_ticks' | 'lifecycle_consolidations' | 'documents' | 'memory_vitals') => string) {
  const prepare = statementCache(db);
  const readTogether = <T>(read: () => T): T => db.transaction(read)();
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
    /**
     * What a tick decays: the vitals of the active memories written at or before `asOf` (ISO, UTC),
     * by id, as columns; no documents row is read. Four plucked reads (arrays of values, no row
     * objects) in one read transaction, so they see the same rows.
     */
    decayInputs(asOf: string): DecayInputColumns {
      const column = <T>(name: string) =>
        prepare<[string], T>(`SELECT ${name} FROM ${table('memory_vitals')} WHERE status = 'active' AND created_at <= ? ORDER BY memory_id`).pluck().all(asOf);
      return readTogether(() => ({
        memoryIds: column<string>('memory_id'),
        importance: column<number>('importance'),
        accessCount: column<number>('access_count'),
        lastAccessedAt: column<string | null>('last_accessed_at'),
      }));
    },
    /** Active memories written at or before `asOf` whose importance is below `threshold`, by id: what the decay policy looks at. */
    activeBelow(asOf: string, threshold: number): PolicyRow[] {
      return prepare(
        `SELECT memory_id AS memoryId, importance, created_at AS createdAt FROM ${table('memory_vitals')}
         WHERE status = 'active' AND created_at <= ? AND importance < ? ORDER BY memory_id`,
      ).all(asOf, threshold) as PolicyRow[];
    },
    /** Active memories written at or before `asOf`, by id, each with whether a consolidation merged it before (its candidates). */
    consolidationMemories(asOf: string): LifecycleMemory[] {
      return prepare(
        // v.memory_id: lifecycle_consolidations has a memory_id column of its own (the merged memory).
        `SELECT ${memoryColumns}, EXISTS (SELECT 1 FROM ${table('lifecycle_consolidations')} c WHERE c.original_id = v.memory_id) AS consolidated
         FROM ${table('memory_vitals')} v JOIN ${table('documents')} d ON d.memory_id = v.memory_id
         WHERE v.status = 'active' AND v.created_at <= ? ORDER BY v.memory_id`,
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
