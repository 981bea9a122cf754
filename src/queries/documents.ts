import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { statementCache } from './statements.js';
import { joinMetadata, type DocumentMetadata, type StoredMetadata } from '../projections/documents.js';

export interface MemoryDocument extends DocumentMetadata {
  readonly memoryId: string;
  readonly text: string;
}

/** What a scope check reads of a memory. */
export type DocumentScope = Pick<MemoryDocument, 'status' | 'sessionId' | 'personaId' | 'userId'>;

export interface ListFilter {
  readonly sessionId?: string;
  readonly personaId?: string;
  readonly userId?: string;
  readonly status?: DocumentMetadata['status'];
  /** Default 50; null lists every match. */
  readonly limit?: number | null;
}

/** Where a page ends: the next page starts after this memory. */
export interface PageCursor {
  readonly createdAt: string;
  readonly memoryId: string;
}

export interface PageFilter extends Omit<ListFilter, 'limit'> {
  /** Memories whose text contains this (case-insensitive for ASCII). */
  readonly text?: string;
  /** Importance within [min, max] (both inclusive). */
  readonly minImportance?: number;
  readonly maxImportance?: number;
  /** createdAt at or after `createdFrom`, before `createdTo` (ISO-8601 strings compare in time order). */
  readonly createdFrom?: string;
  readonly createdTo?: string;
  readonly limit?: number;
  readonly after?: PageCursor;
}

function whereOf(filter: PageFilter | ListFilter): { clause: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const field of ['sessionId', 'personaId', 'userId', 'status'] as const) {
    if (filter[field] === undefined) continue;
    where.push(`json_extract(metadata, '$.${field}') = ?`);
    params.push(filter[field]);
  }
  if ('text' in filter && filter.text !== undefined) {
    where.push(`instr(lower(text), lower(?)) > 0`);
    params.push(filter.text);
  }
  const ranges = [
    ['minImportance', 'v.importance >= ?'],
    ['maxImportance', 'v.importance <= ?'],
    ['createdFrom', `json_extract(metadata, '$.createdAt') >= ?`],
    ['createdTo', `json_extract(metadata, '$.createdAt') < ?`],
  ] as const;
  for (const [field, sql] of ranges) {
    const value = (filter as PageFilter)[field];
    if (value === undefined) continue;
    where.push(sql);
    params.push(value);
  }
  return { clause: where.length > 0 ? `WHERE ${where.join(' AND ')}` : '', params };
}

interface Row {
  memory_id: string;
  text: string;
  metadata: string;
  importance: number;
  access_count: number;
  last_accessed_at: string | null;
}

const toDocument = (row: Row): MemoryDocument => ({
  memoryId: row.memory_id,
  text: row.text,
  ...joinMetadata(JSON.parse(row.metadata) as StoredMetadata, {
    importance: row.importance,
    accessCount: row.access_count,
    lastAccessedAt: row.last_accessed_at,
  }),
});

/**
 * Reads memories from the live documents generation, each row joined with its vitals; filters run
 * in SQL on the expression indexes. `tableOf` resolves `documents` or `memory_vitals` per call.
 */
export function createDocumentQueries(db: SqliteDatabase, tableOf: (name: 'documents' | 'memory_vitals') => string) {
  const prepare = statementCache(db);
  const table = (): string => `${tableOf('documents')} JOIN ${tableOf('memory_vitals')} v USING (memory_id)`;
  const columns = 'memory_id, text, metadata, v.importance, v.access_count, v.last_accessed_at';
  return {
    get(memoryId: string): MemoryDocument | undefined {
      const row = prepare(`SELECT ${columns} FROM ${table()} WHERE memory_id = ?`).get(memoryId) as Row | undefined;
      return row && toDocument(row);
    },
    /** Many memories in one query, for loading recall results in one batch. */
    getMany(memoryIds: readonly string[]): Map<string, MemoryDocument> {
      if (memoryIds.length === 0) return new Map();
      // The ids as one JSON parameter: the same statement text for any number of them.
      const sql = `SELECT ${columns} FROM ${table()} WHERE memory_id IN (SELECT value FROM json_each(?))`;
      return new Map((prepare(sql).all(JSON.stringify(memoryIds)) as Row[]).map((row) => [row.memory_id, toDocument(row)]));
    },
    /**
     * Only the status and scope of memories, for scope checks: a tenth of a whole row's cost (no
     * vitals joined, no JSON parsed here), where most rows checked fail (ADR 21).
     */
    scopesOf(memoryIds: readonly string[]): Map<string, DocumentScope> {
      if (memoryIds.length === 0) return new Map();
      const field = (name: keyof DocumentScope) => `json_extract(metadata, '$.${name}') AS ${name}`;
      const sql = `SELECT memory_id, ${(['status', 'sessionId', 'personaId', 'userId'] as const).map(field).join(', ')} FROM ${tableOf('documents')}
        WHERE memory_id IN (SELECT value FROM json_each(?))`;
      const rows = prepare<[string], DocumentScope & { memory_id: string }>(sql).all(JSON.stringify(memoryIds));
      return new Map(rows.map(({ memory_id, ...scope }) => [memory_id, scope]));
    },
    /**
     * Up to `reach` memories written before and after each given one in its session, nearest
     * first (by createdAt, then id), whatever their status; a memory without
     * a session is left out. Reads only the given memories' session and time, then two indexed
     * lookups (session, createdAt) per memory, however far the reach.
     */
    sessionWindow(memoryIds: readonly string[], reach: number): Map<string, { before: string[]; after: string[] }> {
      const out = new Map<string, { before: string[]; after: string[] }>();
      if (memoryIds.length === 0 || !(reach >= 1)) return out;
      const t = tableOf('documents');
      const session = `json_extract(metadata, '$.sessionId')`;
      const created = `json_extract(metadata, '$.createdAt')`;
      const at = prepare(`SELECT memory_id, ${session} AS session_id, ${created} AS created_at FROM ${t}
        WHERE memory_id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(memoryIds)) as { memory_id: string; session_id: string | null; created_at: string }[];
      const step = (cmp: '<' | '>', order: 'ASC' | 'DESC') =>
        prepare(
          `SELECT memory_id FROM ${t} WHERE ${session} = ? AND (${created}, memory_id) ${cmp} (?, ?)
           ORDER BY ${created} ${order}, memory_id ${order} LIMIT ?`,
        ) as Statement<[string, string, string, number], { memory_id: string }>;
      const [before, after] = [step('<', 'DESC'), step('>', 'ASC')];
      for (const row of at) {
        if (row.session_id === null) continue;
        const key = [row.session_id, row.created_at, row.memory_id, Math.floor(reach)] as const;
        out.set(row.memory_id, { before: before.all(...key).map((r) => r.memory_id), after: after.all(...key).map((r) => r.memory_id) });
      }
      return out;
    },
    list(filter: ListFilter = {}): MemoryDocument[] {
      const { clause, params } = whereOf(filter);
      const sql = `SELECT ${columns} FROM ${table()} ${clause}
        ORDER BY json_extract(metadata, '$.createdAt') DESC, memory_id LIMIT ?`;
      return prepare<unknown[], Row>(sql).all(...params, filter.limit === null ? -1 : (filter.limit ?? 50)).map(toDocument);
    },
    /**
     * One page of a filtered list, newest first, and the total of matches: keyset paging on
     * (createdAt, memoryId), so page 1,000 of 100k costs what page 1 costs.
     */
    page(filter: PageFilter = {}): { items: MemoryDocument[]; total: number; next: PageCursor | null } {
      const { clause, params } = whereOf(filter);
      const created = `json_extract(metadata, '$.createdAt')`;
      const after = filter.after ? `${clause ? `${clause} AND` : 'WHERE'} (${created}, memory_id) < (?, ?)` : clause;
      const limit = filter.limit ?? 50;
      const rows = prepare<unknown[], Row>(
        `SELECT ${columns} FROM ${table()} ${after} ORDER BY ${created} DESC, memory_id DESC LIMIT ?`,
      ).all(...params, ...(filter.after ? [filter.after.createdAt, filter.after.memoryId] : []), limit + 1);
      const items = rows.slice(0, limit).map(toDocument);
      const total = (prepare(`SELECT count(*) AS n FROM ${table()} ${clause}`).get(...params) as { n: number }).n;
      const last = items.at(-1);
      return { items, total, next: rows.length > limit && last ? { createdAt: last.createdAt, memoryId: last.memoryId } : null };
    },
    /** The memories, not forgotten, whose text is one of `texts` (one scan, for de-duplication). */
    withTexts(texts: readonly string[]): MemoryDocument[] {
      const sql = `SELECT ${columns} FROM ${table()}
        WHERE text IN (SELECT value FROM json_each(?)) AND json_extract(metadata, '$.status') != 'forgotten'`;
      return prepare<[string], Row>(sql).all(JSON.stringify(texts)).map(toDocument);
    },
    /** Active memories whose text holds a character matching `charClass`, a GLOB class such as `[一-鿿]`. */
    countActiveWith(charClass: string): number {
      const sql = `SELECT count(*) AS n FROM ${tableOf('documents')} WHERE json_extract(metadata, '$.status') = 'active' AND text GLOB ?`;
      return (prepare(sql).get(`*${charClass}*`) as { n: number }).n;
    },
    count(status?: DocumentMetadata['status']): number {
      const sql = status
        ? `SELECT count(*) AS n FROM ${tableOf('documents')} WHERE json_extract(metadata, '$.status') = ?`
        : `SELECT count(*) AS n FROM ${tableOf('documents')}`;
      return (prepare(sql).get(...(status ? [status] : [])) as { n: number }).n;
    },
  };
}
