import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import type { EventData } from '../events/catalog.js';
import { toFtsQuery } from '../projections/text/tokenizer.js';
import { statementCache } from './statements.js';

const dayMs = 86_400_000;

export type AtomStatus = EventData<'AtomStateChanged'>['to'];
export type AtomType = EventData<'AtomExtracted'>['atomType'];
export type DecayType = EventData<'AtomExtracted'>['decayType'];

export interface MemoryAtom {
  readonly atomId: string;
  readonly memoryId: string;
  readonly atomType: AtomType;
  readonly content: string;
  readonly entities: string[];
  readonly importance: number;
  readonly confidence: number;
  readonly ttlDays: number;
  readonly expiresAt: string | null;
  readonly status: AtomStatus;
  readonly reinforcementCount: number;
  readonly decayType: DecayType;
  readonly supersededBy: string | null;
  readonly sessionId: string | null;
  readonly personaId: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The last extraction, reinforcement or wake: an atom's decay counts from here. */
  readonly touchedAt: string;
}

/** What a tick reads of an atom (the decider's AtomLifeInput). */
export interface TickAtom {
  readonly atomId: string;
  readonly status: AtomStatus;
  readonly decayType: DecayType;
  readonly ttlDays: number;
  readonly expiresAt: string | null;
  readonly touchedAt: string;
}

export interface AtomFilter {
  readonly statuses?: readonly AtomStatus[];
  /** Only atoms that have not expired at this instant (no expiry counts as alive). */
  readonly aliveAt?: string;
  /** Only dormant atoms and atoms last touched at or before this instant (what an access can still change). */
  readonly dormantOrTouchedBy?: string;
}

/** Active atoms that have not expired at `now`. */
export function liveOnly(now: string): AtomFilter {
  return { statuses: ['active'], aliveAt: now };
}

interface Row {
  atom_id: string;
  memory_id: string;
  atom_type: AtomType;
  content: string;
  entities: string;
  importance: number;
  confidence: number;
  ttl_days: number;
  expires_at: string | null;
  status: AtomStatus;
  reinforcement_count: number;
  decay_type: DecayType;
  superseded_by: string | null;
  session_id: string | null;
  persona_id: string | null;
  created_at: string;
  updated_at: string;
  touched_at: string;
}

const toAtom = (r: Row): MemoryAtom => ({
  atomId: r.atom_id,
  memoryId: r.memory_id,
  atomType: r.atom_type,
  content: r.content,
  entities: JSON.parse(r.entities) as string[],
  importance: r.importance,
  confidence: r.confidence,
  ttlDays: r.ttl_days,
  expiresAt: r.expires_at,
  status: r.status,
  reinforcementCount: r.reinforcement_count,
  decayType: r.decay_type,
  supersededBy: r.superseded_by,
  sessionId: r.session_id,
  personaId: r.persona_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  touchedAt: r.touched_at,
});

const columns = `atom_id, memory_id, atom_type, content, entities, importance, confidence, ttl_days, expires_at, status,
  reinforcement_count, decay_type, superseded_by, session_id, persona_id, created_at, updated_at, touched_at`;

/** The instants a Date holds (±8.64e15 ms): a bound beyond them reads every atom, or none. */
const latestDateMs = 8.64e15;
const earliestMs = -8.64e15;

/** ` AND status IN (...) AND (expires_at IS NULL OR expires_at > ?)`; expiries are stored as UTC `...Z`. */
function filterSql(filter: AtomFilter, params: unknown[]): string {
  let sql = '';
  if (filter.statuses) {
    if (filter.statuses.length === 0) return ' AND 0';
    sql += ` AND status IN (${filter.statuses.map(() => '?').join(', ')})`;
    params.push(...filter.statuses);
  }
  if (filter.aliveAt !== undefined) {
    sql += ' AND (expires_at IS NULL OR expires_at > ?)';
    params.push(new Date(filter.aliveAt).toISOString());
  }
  if (filter.dormantOrTouchedBy !== undefined) {
    sql += " AND (status = 'dormant' OR touched_at <= ?)";
    params.push(new Date(filter.dormantOrTouchedBy).toISOString());
  }
  return sql;
}

/** Reads the live atoms generation; `table` resolves a logical table to its physical name per call. */
export function createAtomQueries(db: SqliteDatabase, table: (name: 'memory_atoms' | 'memory_atoms_fts') => string) {
  const prepare = statementCache(db);
  const select = (where: string, params: unknown[], filter: AtomFilter): MemoryAtom[] => {
    const sql = `SELECT ${columns} FROM ${table('memory_atoms')} WHERE ${where}${filterSql(filter, params)} ORDER BY created_at, atom_id`;
    return prepare<unknown[], Row>(sql).all(...params).map(toAtom);
  };
  return {
    get(atomId: string): MemoryAtom | undefined {
      return select('atom_id = ?', [atomId], {})[0];
    },
    /** Every atom in one of `statuses`, oldest first: what a decay tick looks at. */
    inStatuses(statuses: readonly AtomStatus[]): MemoryAtom[] {
      return select('1', [], { statuses });
    },
    /**
     * The atoms a tick can change as of `asOf`, oldest first: active or dormant ones past (or within
     * a day of) their expiry, expired or superseded ones within a day of their cleanup, and active
     * ones old enough (less a day) to score below the dormancy line by their decay type's curve. A
     * superset of what `atomTick` moves, each part read from an index, so a tick reads the atoms
     * that are due instead of every atom.
     */
    dueForTick(asOf: string, rule: { readonly forgetAfterDays: number; readonly dormantAfterTtls: Readonly<Record<DecayType, number | null>> }): TickAtom[] {
      const atoms = table('memory_atoms');
      const cols = 'atom_id AS atomId, status, decay_type AS decayType, ttl_days AS ttlDays, expires_at AS expiresAt, touched_at AS touchedAt, created_at, atom_id';
      const asOfMs = Date.parse(asOf);
      // Expiries are stored as toISOString() strings: they compare in time order.
      const params: Record<string, unknown> = {
        expiring: new Date(asOfMs + dayMs).toISOString(),
        cleaning: new Date(asOfMs - (rule.forgetAfterDays - 1) * dayMs).toISOString(),
        asOf,
      };
      const parts = [
        `SELECT ${cols} FROM ${atoms} WHERE status IN ('active', 'dormant') AND expires_at <= :expiring`,
        `SELECT ${cols} FROM ${atoms} WHERE status IN ('expired', 'superseded') AND expires_at <= :cleaning`,
      ];
      for (const [decayType, ttls] of Object.entries(rule.dormantAfterTtls)) {
        if (ttls === null) continue;
        // No atom of this type crosses the line sooner than its shortest TTL allows (a covering index scan, no date parsed):
        // only the atoms touched by then are read. Times may carry an offset (their text up to 14 h ahead of UTC), so the
        // text bound is 15 h later; the exact test below decides.
        const shortest = prepare<[string], number | null>(`SELECT min(max(1, ttl_days)) FROM ${atoms} WHERE status = 'active' AND decay_type = ?`)
          .pluck()
          .get(decayType);
        const latestMs = asOfMs - ((shortest ?? 1) * ttls - 1) * dayMs + 15 * 3_600_000;
        if (shortest === null || shortest === undefined || !(latestMs >= earliestMs)) continue;
        const n = parts.length;
        params[`type${n}`] = decayType;
        params[`ttls${n}`] = ttls;
        params[`latest${n}`] = new Date(Math.min(latestMs, latestDateMs)).toISOString();
        parts.push(
          `SELECT ${cols} FROM ${atoms} WHERE status = 'active' AND decay_type = :type${n} AND touched_at <= :latest${n}
             AND coalesce(julianday(:asOf) - julianday(touched_at) >= max(1, ttl_days) * :ttls${n} - 1, 1)`,
        );
      }
      const sql = `SELECT atomId, status, decayType, ttlDays, expiresAt, touchedAt FROM (${parts.join(' UNION ')}) ORDER BY created_at, atom_id`;
      return prepare<[Record<string, unknown>], TickAtom>(sql).all(params);
    },
    /** The atoms extracted from one memory, oldest first. */
    ofMemory(memoryId: string, filter: AtomFilter = {}): MemoryAtom[] {
      return select('memory_id = ?', [memoryId], filter);
    },
    /** `ofMemory` of many memories in one statement: each memory's atoms, oldest first (memories without any are left out). */
    ofMemories(memoryIds: readonly string[], filter: AtomFilter = {}): Map<string, MemoryAtom[]> {
      const found = new Map<string, MemoryAtom[]>();
      if (memoryIds.length === 0) return found;
      const params: unknown[] = [JSON.stringify([...new Set(memoryIds)])];
      // CROSS JOIN: the memories drive, each read through the memory index (a status filter would otherwise pick the status index and scan).
      const sql = `SELECT ${columns} FROM json_each(?) j CROSS JOIN ${table('memory_atoms')} ON memory_id = j.value
        WHERE 1${filterSql(filter, params)} ORDER BY created_at, atom_id`;
      for (const atom of prepare<unknown[], Row>(sql).all(...params).map(toAtom)) {
        const list = found.get(atom.memoryId);
        if (list) list.push(atom);
        else found.set(atom.memoryId, [atom]);
      }
      return found;
    },
    /**
     * Atoms of a session/persona whose normalised content (`atomKey`) is `key`: what the engine
     * reinforces instead of extracting the same statement again.
     */
    withKey(scope: { readonly sessionId: string | null; readonly personaId: string | null }, key: string, filter: AtomFilter = {}): MemoryAtom[] {
      return select('session_id IS ? AND persona_id IS ? AND content_key = ?', [scope.sessionId, scope.personaId, key], filter);
    },
    /** How many atoms are in each lifecycle state (states with none are left out). */
    countByStatus(): Record<string, number> {
      const rows = prepare<[], { status: string; n: number }>(`SELECT status, count(*) AS n FROM ${table('memory_atoms')} GROUP BY status ORDER BY status`).all();
      return Object.fromEntries(rows.map((r) => [r.status, r.n]));
    },
    /** BM25 search over atom content with the shared tokenizer (any token matches), best first. */
    search(query: string, options: AtomFilter & { readonly sessionId?: string | null; readonly personaId?: string | null; readonly limit?: number } = {}): MemoryAtom[] {
      const match = toFtsQuery(query);
      if (match === null) return [];
      const fts = table('memory_atoms_fts');
      const params: unknown[] = [match];
      let scope = '';
      for (const column of ['sessionId', 'personaId'] as const) {
        if (options[column] === undefined) continue;
        scope += ` AND a.${column === 'sessionId' ? 'session_id' : 'persona_id'} IS ?`;
        params.push(options[column]);
      }
      const filter = filterSql(options, params).replace(/\b(status|expires_at)\b/g, 'a.$1');
      const sql = `SELECT ${columns.replace(/(\w+)/g, 'a.$1')} FROM ${fts} JOIN ${table('memory_atoms')} a ON a.fts_rowid = ${fts}.rowid
        WHERE ${fts} MATCH ?${scope}${filter} ORDER BY bm25(${fts}), a.atom_id LIMIT ?`;
      return prepare<unknown[], Row>(sql).all(...params, options.limit ?? 20).map(toAtom);
    },
  };
}

export type AtomQueries = ReturnType<typeof createAtomQueries>;
