// One racer of the cross-process append test: opens the shared SQLite file through the compiled log
// (dist, built by `npx tsc -p tsconfig.json`), then for each round waits for the parent's start file
// and appends at once. Messages: parent -> {type:'arm'|'exit'}, child -> {type:'ready'|'armed'|'result'}.
import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const dist = new URL('../../dist/src/events/log/', import.meta.url);
const { openDatabase } = await import(new URL('sqlite-database.js', dist).href);
const { createSqliteEventLog } = await import(new URL('sqlite-event-log.js', dist).href);

const [dbPath] = process.argv.slice(2);
const db = openDatabase(dbPath, { synchronous: 'NORMAL' });
const log = createSqliteEventLog(db);
const send = (message) => new Promise((resolve) => process.send(message, resolve));

process.on('message', async (message) => {
  if (message.type === 'exit') {
    await log.close();
    db.close();
    process.disconnect();
    return;
  }
  if (message.type !== 'arm') return;
  const { round, streamId, events, goFile } = message;
  await send({ type: 'armed', round });
  const deadline = Date.now() + 10_000;
  while (!existsSync(goFile)) {
    if (Date.now() > deadline) {
      send({ type: 'result', round, ok: false, errorName: 'Timeout', message: `no start signal ${goFile}` });
      return;
    }
  }
  const startedAt = performance.timeOrigin + performance.now();
  try {
    const result = await log.append(streamId, events, { expectedRevision: 'no_stream' });
    send({ type: 'result', round, ok: true, startedAt, lastPosition: String(result.lastPosition) });
  } catch (error) {
    send({ type: 'result', round, ok: false, startedAt, errorName: error?.name, message: String(error?.message) });
  }
});

send({ type: 'ready', pid: process.pid });
