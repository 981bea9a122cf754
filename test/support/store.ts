import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type SqliteDatabase } from '../../src/events/log/sqlite-database.js';
import { createSqliteEventLog, sqliteLockedHead, type SqliteEventLog } from '../../src/events/log/sqlite-event-log.js';
import { documentsProjection } from '../../src/projections/documents.js';
import type { Projection } from '../../src/projections/projection.js';
import { createProjectionRunner, type ProjectionRunner } from '../../src/projections/runner.js';

export interface TestStore {
  readonly dir: string;
  readonly path: string;
  readonly db: SqliteDatabase;
  readonly log: SqliteEventLog;
  readonly runner: ProjectionRunner;
  close(): void;
}

/** A real SQLite file in a fresh temporary folder with the log and the given projections. */
export function openTestStore(projections: readonly Projection[] = [documentsProjection], pageSize = 7): TestStore {
  const dir = mkdtempSync(join(tmpdir(), 'lmem-test-'));
  const path = join(dir, 'store.db');
  const db = openDatabase(path, { synchronous: 'NORMAL' });
  const log = createSqliteEventLog(db);
  const runner = createProjectionRunner({ db, log, projections, pageSize, lockedHead: sqliteLockedHead(db) });
  return {
    dir,
    path,
    db,
    log,
    runner,
    close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
