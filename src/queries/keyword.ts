import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { toFtsQuery } from '../projections/text/tokenizer.js';

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

interface Row {
  memory_id: string;
  bm25_score: number;
}

/**
 * BM25 keyword search over the live `fts` generation (`table` resolves its physical name per
 * query). The query goes through the same tokenizer as the memories; scope and status filters
 * are in the WHERE clause, so they run before the LIMIT.
 */
export function createKeywordSearch(db: SqliteDatabase, table: () => string) {
  return {
    search(query: string, filter: KeywordFilter = {}): KeywordHit[] {
      const match = toFtsQuery(query);
      const limit = filter.limit ?? 10;
      if (match === null || !(limit >= 1)) return [];
      const t = table();
      const where = [`${t} MATCH ?`];
      const params: unknown[] = [match];
      const add = (column: string, value: string | null | undefined): void => {
        if (value === undefined || value === null) return;
        where.push(`${column} = ?`);
        params.push(value);
      };
      add('session_id', filter.sessionId);
      add('persona_id', filter.personaId);
      add('user_id', filter.userId);
      add('status', filter.status === undefined ? 'active' : filter.status);
      const sql = `SELECT memory_id, bm25(${t}) AS bm25_score FROM ${t} WHERE ${where.join(' AND ')}
        ORDER BY bm25_score, memory_id LIMIT ?`;
      const rows = db.prepare<unknown[], Row>(sql).all(...params, Math.floor(limit));
      return rows.map((row) => ({ memoryId: row.memory_id, score: -row.bm25_score }));
    },
  };
}
