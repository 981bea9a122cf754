import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { toFtsQuery } from '../projections/text/tokenizer.js';
import { rankedWithFilter, rankedWithin, type RankedRowid } from './fts-ranked.js';
import { statementCache } from './statements.js';

export interface KeywordFilter {
  readonly sessionId?: string;
  readonly personaId?: string;
  readonly userId?: string;
  /** `'active'` unless given; `null` searches every status that is still indexed (active and archived). */
  readonly status?: string | null;
  readonly limit?: number;
}

export interface KeywordHit {
  readonly memoryId: string;
  /** The negated FTS5 bm25(): higher is better. */
  readonly score: number;
}

interface ScopeRow {
  rowid: number;
  memory_id: string;
  session_id: string | null;
  persona_id: string | null;
  user_id: string | null;
  status: string;
}

type Row = ScopeRow & RankedRowid;

/**
 * BM25 keyword search over the live `fts` generation (`table` resolves its physical name per
 * query). The query goes through the same tokenizer as the memories; scope and status filters
 * run before the LIMIT, inside the SQL, or, for the broad ones (status, persona), on a window of
 * the best rowids (see fts-ranked.ts). Ties go to the earlier-written memory (the FTS rowid is
 * its MemoryWritten position).
 */
export function createKeywordSearch(db: SqliteDatabase, table: () => string, keysTable: () => string) {
  const prepare = statementCache(db);
  return {
    /**
     * The stored tokens of each memory the index holds (`tokenize()` of its current text, as
     * indexed): recall compares candidates by them without tokenizing again, so a search over
     * Chinese memories does not load jieba's dictionary (seconds) in every CLI process.
     */
    tokensOf(memoryIds: readonly string[]): Map<string, readonly string[]> {
      const found = new Map<string, readonly string[]>();
      if (memoryIds.length === 0) return found;
      const rows = prepare(
        `SELECT k.memory_id AS id, f.tokens AS tokens FROM ${keysTable()} k JOIN ${table()} f ON f.rowid = k.fts_rowid
         WHERE k.memory_id IN (SELECT value FROM json_each(?))`,
      ).all(JSON.stringify(memoryIds)) as { id: string; tokens: string }[];
      for (const row of rows) found.set(row.id, row.tokens === '' ? [] : row.tokens.split(' '));
      return found;
    },
    search(query: string, filter: KeywordFilter = {}): KeywordHit[] {
      return this.searchMatch(toFtsQuery(query), filter);
    },
    /** `search` of a query already made a MATCH string (`toFtsQuery`), e.g. by a thread that has the tokenizer loaded. */
    searchMatch(match: string | null, filter: KeywordFilter = {}): KeywordHit[] {
      const limit = Math.floor(filter.limit ?? 10);
      if (match === null || !(limit >= 1)) return [];
      const t = table();
      const where = [`${t} MATCH ?`];
      const params: unknown[] = [match];
      const wanted: [keyof ScopeRow, string][] = [];
      const add = (column: keyof ScopeRow, value: string | null | undefined): void => {
        if (value === undefined || value === null) return;
        where.push(`${column} = ?`);
        params.push(value);
        wanted.push([column, value]);
      };
      add('session_id', filter.sessionId);
      add('persona_id', filter.personaId);
      add('user_id', filter.userId);
      add('status', filter.status === undefined ? 'active' : filter.status);
      const columns = 'rowid, memory_id, session_id, persona_id, user_id, status';
      const filtered = (): Row[] =>
        prepare(`SELECT ${columns}, bm25(${t}) AS bm25 FROM ${t}
          WHERE ${where.join(' AND ')} ORDER BY bm25, rowid LIMIT ?`).all(...params, limit) as Row[];
      // A session or user holds few of the matches: they are told by rowid, from the keys table's scope index.
      const narrow = filter.sessionId != null || filter.userId != null;
      const rows = narrow
        ? rankedWithin<ScopeRow>({
            prepare, fts: t, columns, match, limit, within: `SELECT fts_rowid FROM ${keysTable()} WHERE ${where.slice(1).join(' AND ')}`, params: params.slice(1),
          })
        : rankedWithFilter<ScopeRow>({
            prepare, fts: t, columns, match, limit, filtered,
            keep: (row) => wanted.every(([column, value]) => row[column] === value),
          });
      return rows.map((row) => ({ memoryId: row.memory_id, score: -row.bm25 }));
    },
  };
}
