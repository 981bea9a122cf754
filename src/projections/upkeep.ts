import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { dropGenerationInSlices } from './drop.js';
import { ftsTablesOf, mergeSegmentsInSlices } from './fts-merge.js';
import type { Projection } from './projection.js';
import { sliceBudgetMs, turn } from './turns.js';

/**
 * A projection runner's work after the fact, one task after another in slices: retired
 * generations' tables dropped (drop.ts), and FTS5 tables that a replay or an import filled merged
 * (fts-merge.ts). A task that fails (a table dropped meanwhile) leaves the next to run.
 */
export function createUpkeep(db: SqliteDatabase, walBound?: (patienceMs?: number) => Promise<void>) {
  let queue: Promise<void> = Promise.resolve();
  // Their slices write too (rows deleted, segments rewritten), and nothing waits for them: held while
  // the WAL is brought back, through a digest's snapshot too (up to 10 s a slice), so that they never
  // take it past the bound where the event loop's thread checkpoints (checkpoint-worker.ts).
  const pause = async (): Promise<void> => {
    await turn();
    await walBound?.(10_000);
  };
  const later = (task: () => Promise<void>): void => {
    queue = queue.then(task).catch(() => undefined);
  };
  return {
    drop: (p: Projection, generation: number): void => later(() => dropGenerationInSlices(db, p, generation, pause)),
    merge: (p: Projection, generation: number): void =>
      later(async () => {
        for (const table of ftsTablesOf(db, p, generation)) await mergeSegmentsInSlices(db, table, sliceBudgetMs, pause).catch(() => undefined);
      }),
    /** Resolves once every task queued so far is done. */
    idle: (): Promise<void> => queue,
  };
}
