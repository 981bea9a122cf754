import type { SourceMessage } from '../events/fields.js';
import { statementCache } from './statements.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';

/** The messages each memory was built from, read from the live `memory_sources` generation. */
export function createSourceQueries(db: SqliteDatabase, table: () => string) {
  const prepare = statementCache(db);
  return {
    /** The memory's source messages; `[]` when it has none or is unknown. */
    of(memoryId: string): SourceMessage[] {
      const row = prepare(`SELECT sources FROM ${table()} WHERE memory_id = ?`).get(memoryId) as { sources: string } | undefined;
      return row ? (JSON.parse(row.sources) as SourceMessage[]) : [];
    },
    /** How many source messages each given memory has (a memory the table does not hold is left out); sources are counted, not parsed. */
    countsOf(memoryIds: readonly string[]): Map<string, number> {
      if (memoryIds.length === 0) return new Map();
      const rows = prepare(`SELECT memory_id, json_array_length(sources) AS n FROM ${table()} WHERE memory_id IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(memoryIds)) as { memory_id: string; n: number }[];
      return new Map(rows.map((r) => [r.memory_id, r.n]));
    },
    /** Whether the memory is a record of messages (it has sources), without parsing them. */
    has(memoryId: string): boolean {
      return prepare(`SELECT 1 FROM ${table()} WHERE memory_id = ? AND sources <> '[]'`).get(memoryId) !== undefined;
    },
  };
}
