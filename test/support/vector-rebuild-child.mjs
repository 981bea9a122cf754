// Runs a vector rebuild in its own process so a test can kill it with SIGKILL half-way.
// Uses the compiled build in dist/ (npm test builds it first).
import { openDatabase } from '../../dist/src/events/log/sqlite-database.js';
import { createSqliteEventLog, sqliteLockedHead } from '../../dist/src/events/log/sqlite-event-log.js';
import { createVectorStore } from '../../dist/src/projections/vectors/vector-store.js';
import { testVectorSource } from '../../dist/test/support/vector-source.js';

const [dbPath, dir] = process.argv.slice(2);
const db = openDatabase(dbPath, { synchronous: 'NORMAL' });
const log = createSqliteEventLog(db);
const vectors = createVectorStore({ db, log, dir, source: testVectorSource(), pageSize: 50, lockedHead: sqliteLockedHead(db) });
await vectors.rebuild({
  persistEvery: 100,
  onProgress: (p) => {
    process.stdout.write(`progress ${p.checkpoint}\n`);
    // Slow enough that the parent's kill lands in the middle.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30);
  },
});
process.stdout.write('finished\n');
