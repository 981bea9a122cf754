import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';

/** Typed like `db.prepare`, but each SQL text is prepared once. */
export type CachedPrepare = <P extends unknown[] | {} = unknown[], R = unknown>(sql: string) => Statement<P, R>;

/**
 * Prepared statements by SQL text, for read paths that run the same queries on every recall. A
 * query's SQL names the live generation's tables, so it is stable between switches; retired
 * generations leave statements behind, so a full cache starts again.
 */
export function statementCache(db: SqliteDatabase): CachedPrepare {
  const statements = new Map<string, Statement>();
  return <P extends unknown[] | {} = unknown[], R = unknown>(sql: string): Statement<P, R> => {
    let found = statements.get(sql);
    if (!found) {
      if (statements.size >= 256) statements.clear();
      statements.set(sql, (found = db.prepare(sql)));
    }
    return found as unknown as Statement<P, R>;
  };
}
