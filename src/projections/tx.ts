import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { generationTable } from './generations.js';
import type { Projection, ProjectionTx } from './projection.js';

/** A ProjectionTx bound to one generation; statements are prepared once per SQL template. */
export function bindGeneration(db: SqliteDatabase, projection: Projection, generation: number): ProjectionTx {
  const names = new Set(projection.tables.map((t) => t.name));
  const cache = new Map<string, Statement>();
  const table = (name: string): string => {
    if (!names.has(name)) throw new Error(`projection ${projection.name} has no table ${name}`);
    return generationTable(name, generation);
  };
  const expand = (sql: string): string => sql.replace(/\{(\w+)\}/g, (_, name: string) => table(name));
  const prepared = (sql: string): Statement => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = db.prepare(expand(sql));
      cache.set(sql, statement);
    }
    return statement;
  };
  return {
    db,
    table,
    run: (sql, ...params) => prepared(sql).run(...params),
    get: <R>(sql: string, ...params: unknown[]) => prepared(sql).get(...params) as R | undefined,
    all: <R>(sql: string, ...params: unknown[]) => prepared(sql).all(...params) as R[],
    exec: (sql) => db.exec(expand(sql)),
  };
}

export function dropGenerationTables(db: SqliteDatabase, projection: Projection, generation: number): void {
  for (const { name } of projection.tables) db.exec(`DROP TABLE IF EXISTS ${generationTable(name, generation)}`);
}
