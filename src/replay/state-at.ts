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

/**
 * The read models as they were at `position`: the projections replayed into a temporary
 * in-memory store from the log's first `position` events. The live store is not touched.
 */
export async function projectionsAt(log: EventLog, projections: readonly Projection[], position: bigint): Promise<StateAt> {
  const db = openDatabase(':memory:');
  const runner = createProjectionRunner({ db, log, projections });
  await runner.catchUp(undefined, position);
  return { position, db, runner, close: () => db.close() };
}
