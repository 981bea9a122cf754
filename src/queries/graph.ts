import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import type { GraphTable } from '../projections/graph.js';
import { englishStopWords, isChineseStopWord } from '../projections/text/stopwords.js';
import { rankedWithFilter, rankedWithin, type RankedRowid } from './fts-ranked.js';
import { statementCache } from './statements.js';
import { createNeighbourQueries, type NeighbourOptions, type NeighbourPath } from './graph-neighbours.js';

export interface GraphScope {
  /** `undefined`: any session; `null`: only entries without a session. */
  readonly sessionId?: string | null;
  readonly personaId?: string | null;
}

export interface GraphSearchOptions extends GraphScope {
  readonly limit?: number;
}

export interface GraphHit {
  readonly entryId: string;
  readonly memoryId: string;
  readonly text: string;
  readonly sessionId: string | null;
  readonly personaId: string | null;
}

export interface GraphNeighbour extends NeighbourPath {
  readonly nodeType: string;
  readonly value: string;
}

export { SECOND_HOP_WEIGHT } from './graph-neighbours.js';

/** FTS5's trigram tokenizer matches nothing shorter than three characters. */
export const MIN_TRIGRAM_LENGTH = 3;

interface EntryRow {
  entry_id: string;
  memory_id: string;
  text: string;
  session_id: string | null;
  persona_id: string | null;
}

const toHit = (r: EntryRow): GraphHit => ({ entryId: r.entry_id, memoryId: r.memory_id, text: r.text, sessionId: r.session_id, personaId: r.persona_id });

/** A term as an FTS5 string: quoted, so operators and punctuation in user text are literal. */
const quote = (term: string): string => `"${term.replace(/"/g, '""')}"`;

/** ` AND session_id IS ? AND persona_id IS ?` for the scope's given fields; `IS` matches null too. */
function scopeSql(scope: GraphScope, params: unknown[], alias = ''): string {
  let sql = '';
  if (scope.sessionId !== undefined) {
    sql += ` AND ${alias}session_id IS ?`;
    params.push(scope.sessionId);
  }
  if (scope.personaId !== undefined) {
    sql += ` AND ${alias}persona_id IS ?`;
    params.push(scope.personaId);
  }
  return sql;
}

/** Reads the live graph generation; `table` resolves a logical table to its physical name per call. */
export function createGraphQueries(db: SqliteDatabase, table: (name: GraphTable) => string) {
  const neighbourQueries = createNeighbourQueries(db, table);
  const prepare = statementCache(db);

  return {
    /**
     * Keyword search over entry text. Whitespace-separated terms must all occur (case-insensitive
     * for ASCII): terms of three characters or more through the trigram index (ranked by bm25),
     * shorter ones by substring; a query of only short terms scans the scope's entries in id order.
     */
    search(query: string, options: GraphSearchOptions = {}): GraphHit[] {
      const terms = query.normalize('NFKC').trim().split(/\s+/).filter((t) => t.length > 0);
      if (terms.length === 0) return [];
      const long = terms.filter((t) => [...t].length >= MIN_TRIGRAM_LENGTH);
      const short = terms.filter((t) => [...t].length < MIN_TRIGRAM_LENGTH).map((t) => t.toLowerCase());
      const params: unknown[] = [];
      const limit = options.limit ?? 20;
      if (long.length > 0) {
        const fts = table('graph_entries_fts');
        params.push(long.map(quote).join(' AND '));
        const shortSql = short.map((t) => (params.push(t), ' AND instr(lower(text), ?) > 0')).join('');
        const scope = scopeSql(options, params);
        const sql = `SELECT entry_id, memory_id, text, session_id, persona_id FROM ${fts}
          WHERE ${fts} MATCH ?${shortSql}${scope} ORDER BY bm25(${fts}), entry_id LIMIT ?`;
        return prepare<unknown[], EntryRow>(sql).all(...params, limit).map(toHit);
      }
      const shortSql = short.map((t) => (params.push(t), 'instr(lower(text), ?) > 0')).join(' AND ');
      const scope = scopeSql(options, params);
      const sql = `SELECT entry_id, memory_id, text, session_id, persona_id FROM ${table('graph_entries')}
        WHERE ${shortSql}${scope} ORDER BY entry_id LIMIT ?`;
      return prepare<unknown[], EntryRow>(sql).all(...params, limit).map(toHit);
    },

    ...neighbourQueries,

    /** Nodes one hop from `key` (either direction), and with `hops: 2` the nodes one hop further, with their type and value. */
    neighbours(key: string, options: NeighbourOptions = {}): GraphNeighbour[] {
      const nodes = table('graph_nodes');
      const info = prepare<[string], { node_type: string; canonical_value: string }>(`SELECT node_type, canonical_value FROM ${nodes} WHERE node_key = ?`);
      return (neighbourQueries.neighboursOfMany([key], options).get(key) ?? []).map((n) => {
        const row = info.get(n.nodeKey);
        const [prefix = '', ...rest] = n.nodeKey.split(':');
        return { ...n, nodeType: row?.node_type ?? prefix, value: row?.canonical_value ?? rest.join(':') };
      });
    },

    /**
     * Entries matching ANY term of three characters or more that is not a stop word (bm25 over the trigram index, best
     * first, ties to the earlier-indexed entry): the recall route's keyword search, where a
     * question rarely holds every term.
     */
    searchAny(query: string, options: GraphSearchOptions = {}): GraphHit[] {
      // Function words ("the", "what", "did") match nearly every entry and rank nothing: as in keyword search, they are left out.
      const long = [...new Set(query.normalize('NFKC').toLowerCase().split(/[\s\p{P}]+/u))].filter(
        (t) => [...t].length >= MIN_TRIGRAM_LENGTH && !englishStopWords.has(t) && !isChineseStopWord(t),
      );
      if (long.length === 0) return [];
      const fts = table('graph_entries_fts');
      const match = long.map(quote).join(' OR ');
      const limit = options.limit ?? 20;
      const params: unknown[] = [match];
      const scope = scopeSql(options, params);
      const columns = `rowid, entry_id, memory_id, text, session_id, persona_id`;
      const filtered = () =>
        prepare(`SELECT ${columns}, bm25(${fts}) AS bm25 FROM ${fts} WHERE ${fts} MATCH ?${scope} ORDER BY bm25, rowid LIMIT ?`)
          .all(...params, limit) as (EntryRow & RankedRowid)[];
      // A session holds few of the matches: they are told by rowid, from the entries table's scope index.
      const within = () => {
        const scopeParams: unknown[] = [];
        return rankedWithin<EntryRow & { rowid: number }>({
          prepare, fts, columns, match, limit, within: `SELECT fts_rowid FROM ${table('graph_entries')} WHERE 1${scopeSql(options, scopeParams)}`, params: scopeParams,
        });
      };
      const rows = options.sessionId !== undefined
        ? within()
        : rankedWithFilter<EntryRow & { rowid: number }>({
            prepare, fts, columns, match, limit, filtered,
            keep: (row) => options.personaId === undefined || row.persona_id === options.personaId,
          });
      return rows.map(toHit);
    },

    /** The nodes the given entries mention, by entry. */
    nodesOf(entryIds: readonly string[]): Map<string, string[]> {
      const found = new Map<string, string[]>();
      if (entryIds.length === 0) return found;
      const sql = `SELECT entry_id, node_key FROM ${table('graph_entry_nodes')} WHERE entry_id IN (SELECT value FROM json_each(?))
        ORDER BY entry_id, node_key`;
      for (const row of prepare<[string], { entry_id: string; node_key: string }>(sql).all(JSON.stringify(entryIds))) {
        found.set(row.entry_id, [...(found.get(row.entry_id) ?? []), row.node_key]);
      }
      return found;
    },

    /** The memory of each of the given entries (entries no longer in the graph are left out). */
    memoryOfEntries(entryIds: readonly string[]): Map<string, string> {
      if (entryIds.length === 0) return new Map();
      const sql = `SELECT entry_id, memory_id FROM ${table('graph_entries')} WHERE entry_id IN (SELECT value FROM json_each(?))`;
      const rows = prepare<[string], { entry_id: string; memory_id: string }>(sql).all(JSON.stringify(entryIds));
      return new Map(rows.map((r) => [r.entry_id, r.memory_id]));
    },

    /** The entries of the given memories, entry id -> memory id (a few index reads, where looking up many entries one by one is not). */
    entriesOfMemories(memoryIds: Iterable<string>): Map<string, string> {
      const ids = [...memoryIds];
      if (ids.length === 0) return new Map();
      const sql = `SELECT entry_id, memory_id FROM ${table('graph_entries')} WHERE memory_id IN (SELECT value FROM json_each(?))`;
      const rows = prepare<[string], { entry_id: string; memory_id: string }>(sql).all(JSON.stringify(ids));
      return new Map(rows.map((r) => [r.entry_id, r.memory_id]));
    },

    /** Merged weight of one edge across memories (0 when no memory carries it). */
    edgeWeight(source: string, target: string, relation: string): { weight: number; memoryCount: number } {
      const row = db
        .prepare<[string, string, string], { weight: number; memory_count: number }>(
          `SELECT weight, memory_count FROM ${table('graph_edge_weights')} WHERE source_node = ? AND target_node = ? AND relation = ?`,
        )
        .get(source, target, relation);
      return { weight: row?.weight ?? 0, memoryCount: row?.memory_count ?? 0 };
    },

    /** Memories whose entries mention any of the nodes, in the scope, sorted by id. */
    memoriesOf(keys: readonly string[], scope: GraphScope = {}): string[] {
      if (keys.length === 0) return [];
      const params: unknown[] = [...keys];
      const scopeFilter = scopeSql(scope, params, 'e.');
      const sql = `SELECT DISTINCT e.memory_id AS id FROM ${table('graph_entry_nodes')} n JOIN ${table('graph_entries')} e USING (entry_id)
        WHERE n.node_key IN (${keys.map(() => '?').join(', ')})${scopeFilter} ORDER BY e.memory_id`;
      return prepare<unknown[], { id: string }>(sql).all(...params).map((r) => r.id);
    },
  };
}

export type GraphQueries = ReturnType<typeof createGraphQueries>;
