import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { withoutFsync } from '../events/log/durability.js';
import { generationTable } from './generations.js';
import type { Projection } from './projection.js';
import { sliceBudgetMs, turn } from './turns.js';

const fts5Shadows = ['data', 'idx', 'content', 'docsize'];

/** The tables whose rows hold a table's data: itself, or an FTS5 table's shadow tables (the virtual table has none of its own). */
function dataTables(db: SqliteDatabase, table: string): { name: string; shadow: boolean; key: string; columns: string }[] {
  const ddl = db.prepare<[string], string>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck();
  const sql = ddl.get(table);
  if (sql === undefined) return [];
  const virtual = /^create virtual table/i.test(sql);
  const names = virtual ? fts5Shadows.map((suffix) => `${table}_${suffix}`).filter((name) => ddl.get(name) !== undefined) : [table];
  return names.map((name) => {
    const own = ddl.get(name) ?? '';
    if (!/without\s+rowid/i.test(own)) return { name, shadow: virtual, key: 'rowid', columns: 'rowid' };
    const pk = db.prepare<[string], { name: string; pk: number }>('SELECT name, pk FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk').all(name);
    const columns = pk.map((c) => c.name).join(', ');
    return { name, shadow: virtual, key: `(${columns})`, columns };
  });
}

/**
 * Empties tables a slice at a time (each its own short transaction, about `budgetMs` of wall time, a
 * turn of the event loop between), then drops them: one DROP of a retired generation's tables
 * took seconds at 100k memories, every freed page zeroed (secure_delete, ADR 19), and any append
 * waits for it. An FTS5 table's rows live in its shadow tables, emptied directly (SQLite refuses
 * that in its defensive mode, lifted only for the slice): deleting through the FTS5 table would
 * tokenize every row again.
 */
export async function dropTablesInSlices(db: SqliteDatabase, tables: readonly string[], budgetMs = sliceBudgetMs, pause: () => Promise<void> = turn): Promise<void> {
  for (const table of tables) {
    for (const target of dataTables(db, table)) {
      const sql = `DELETE FROM ${target.name} WHERE ${target.key} IN (SELECT ${target.columns} FROM ${target.name} LIMIT ?)`;
      // SQLite checks a write to a shadow table when it compiles the statement: compiled inside the lifted mode.
      const unsafe = <T>(work: () => T): T => {
        if (!target.shadow) return work();
        db.unsafeMode(true);
        try {
          return work();
        } finally {
          db.unsafeMode(false);
        }
      };
      const del = unsafe(() => db.prepare(sql));
      const slice = db.transaction((rows: number) => del.run(rows).changes);
      let rows = 256;
      for (;;) {
        // Wall time, not CPU: a slice mostly reads the table's pages and writes them zeroed, which CPU
        // time does not see (at 100k memories slices sized by CPU held the event loop 100-450 ms).
        const started = performance.now();
        const changes = unsafe(() => withoutFsync(db, () => slice.immediate(rows)));
        if (changes < rows) break;
        const took = Math.max(0.05, performance.now() - started);
        // Up by at most twice a slice: one fast slice (its pages cached) made the next 100,000 rows, 500 ms at 100k memories.
        rows = Math.max(64, Math.min(100_000, 2 * rows, Math.floor((rows * budgetMs) / took)));
        await pause();
      }
    }
    withoutFsync(db, () => db.transaction(() => db.exec(`DROP TABLE IF EXISTS ${table}`)).immediate());
    await pause();
  }
}

/** Drops a generation's tables in slices; `pause` runs between them. */
export function dropGenerationInSlices(db: SqliteDatabase, projection: Projection, generation: number, pause: () => Promise<void> = turn): Promise<void> {
  return dropTablesInSlices(db, projection.tables.map((t) => generationTable(t.name, generation)), sliceBudgetMs, pause);
}

/** Retired generations whose tables are still there (a process stopped while it dropped them). */
export function leftoverGenerations(db: SqliteDatabase, projection: Projection): number[] {
  const retired = db.prepare<[string], number>("SELECT generation FROM projection_generations WHERE name = ? AND status = 'retired'").pluck().all(projection.name);
  const exists = db.prepare<[string], number>("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?").pluck();
  return retired.filter((generation) => projection.tables.some((t) => (exists.get(generationTable(t.name, generation)) ?? 0) > 0));
}
