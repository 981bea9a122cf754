import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import type { DocumentMetadata } from '../projections/documents.js';

export interface MemoryDocument extends DocumentMetadata {
  readonly memoryId: string;
  readonly text: string;
}

export interface ListFilter {
  readonly sessionId?: string;
  readonly personaId?: string;
  readonly status?: DocumentMetadata['status'];
  readonly limit?: number;
}

interface Row {
  memory_id: string;
  text: string;
  metadata: string;
}

const toDocument = (row: Row): MemoryDocument => ({
  memoryId: row.memory_id,
  text: row.text,
  ...(JSON.parse(row.metadata) as DocumentMetadata),
});

/** Reads memories from the live documents generation; filters run in SQL on the expression indexes. */
export function createDocumentQueries(db: SqliteDatabase, table: () => string) {
  return {
    get(memoryId: string): MemoryDocument | undefined {
      const row = db.prepare<[string], Row>(`SELECT memory_id, text, metadata FROM ${table()} WHERE memory_id = ?`).get(memoryId);
      return row && toDocument(row);
    },
    /** Many memories in one query, for loading recall results in one batch. */
    getMany(memoryIds: readonly string[]): Map<string, MemoryDocument> {
      if (memoryIds.length === 0) return new Map();
      // The ids as one JSON parameter: the same statement text for any number of them.
      const sql = `SELECT memory_id, text, metadata FROM ${table()} WHERE memory_id IN (SELECT value FROM json_each(?))`;
      return new Map(db.prepare<[string], Row>(sql).all(JSON.stringify(memoryIds)).map((row) => [row.memory_id, toDocument(row)]));
    },
    list(filter: ListFilter = {}): MemoryDocument[] {
      const where: string[] = [];
      const params: unknown[] = [];
      const add = (field: string, value: unknown): void => {
        if (value === undefined) return;
        where.push(`json_extract(metadata, '$.${field}') = ?`);
        params.push(value);
      };
      add('sessionId', filter.sessionId);
      add('personaId', filter.personaId);
      add('status', filter.status);
      const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
      const sql = `SELECT memory_id, text, metadata FROM ${table()} ${clause}
        ORDER BY json_extract(metadata, '$.createdAt') DESC, memory_id LIMIT ?`;
      return db.prepare<unknown[], Row>(sql).all(...params, filter.limit ?? 50).map(toDocument);
    },
    count(status?: DocumentMetadata['status']): number {
      const sql = status
        ? `SELECT count(*) AS n FROM ${table()} WHERE json_extract(metadata, '$.status') = ?`
        : `SELECT count(*) AS n FROM ${table()}`;
      return (db.prepare(sql).get(...(status ? [status] : [])) as { n: number }).n;
    },
  };
}
