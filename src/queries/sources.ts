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
    /** Whether the memory is a record of messages (it has sources), without parsing them. */
    has(memoryId: string): boolean {
      return prepare(`SELECT 1 FROM ${table()} WHERE memory_id = ? AND sources <> '[]'`).get(memoryId) !== undefined;
    },
  };
}
