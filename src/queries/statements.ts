import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';

/** Prepared statements by SQL text: a query's SQL names the live generation's tables, so it is stable between switches. */
export function statementCache(db: SqliteDatabase): (sql: string) => Statement {
  const statements = new Map<string, Statement>();
  return (sql) => {
    let found = statements.get(sql);
    if (!found) {
      // Retired generations leave statements behind; a full cache starts again.
      if (statements.size >= 256) statements.clear();
      statements.set(sql, (found = db.prepare(sql)));
    }
    return found;
  };
}
