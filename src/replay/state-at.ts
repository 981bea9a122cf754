import type { EventLog } from '../events/log/event-log.js';
import { openDatabase, type SqliteDatabase } from '../events/log/sqlite-database.js';
import type { Projection } from '../projections/projection.js';
import { createProjectionRunner, type ProjectionRunner } from '../projections/runner.js';

export interface StateAt {
  readonly position: bigint;
  readonly db: SqliteDatabase;
  readonly runner: ProjectionRunner;
  close(): void;
}

/** How many positions are replayed between two looks at the abort signal. */
const abortStep = 10_000n;

/**
 * The read models as they were at `position`: the projections replayed into a temporary
 * in-memory store from the log's first `position` events. The live store is not touched. An
 * aborted `signal` stops the replay between steps (the error says so).
 */
export async function projectionsAt(log: EventLog, projections: readonly Projection[], position: bigint, signal?: AbortSignal): Promise<StateAt> {
  const db = openDatabase(':memory:');
  const runner = createProjectionRunner({ db, log, projections });
  try {
    for (let to = position < abortStep ? position : abortStep; ; to = to + abortStep < position ? to + abortStep : position) {
      if (signal?.aborted) throw new Error('replay cancelled');
      await runner.catchUp(undefined, to);
      if (to === position) break;
    }
  } catch (error) {
    db.close();
    throw error;
  }
  return { position, db, runner, close: () => db.close() };
}
