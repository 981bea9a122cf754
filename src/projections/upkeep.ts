import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { dropGenerationInSlices } from './drop.js';
import { ftsTablesOf, mergeSegmentsInSlices } from './fts-merge.js';
import type { Projection } from './projection.js';

/**
 * A projection runner's work after the fact, one task after another in slices: retired
 * generations' tables dropped (drop.ts), and FTS5 tables that a replay or an import filled merged
 * (fts-merge.ts). A task that fails (a table dropped meanwhile) leaves the next to run.
 */
export function createUpkeep(db: SqliteDatabase) {
  let queue: Promise<void> = Promise.resolve();
  const later = (task: () => Promise<void>): void => {
    queue = queue.then(task).catch(() => undefined);
  };
  return {
    drop: (p: Projection, generation: number): void => later(() => dropGenerationInSlices(db, p, generation)),
    merge: (p: Projection, generation: number): void =>
      later(async () => {
        for (const table of ftsTablesOf(db, p, generation)) await mergeSegmentsInSlices(db, table).catch(() => undefined);
      }),
    /** Resolves once every task queued so far is done. */
    idle: (): Promise<void> => queue,
  };
}
