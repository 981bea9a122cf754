import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, openReadOnly, type SqliteDatabase } from '../src/events/log/sqlite-database.js';
import { createSqliteEventLog } from '../src/events/log/sqlite-event-log.js';
import { WalSyncError, type FileSync } from '../src/events/log/wal-sync.js';
import { ConcurrencyError } from '../src/events/errors.js';
import { documentsProjection } from '../src/projections/documents.js';
import { createProjectionRunner } from '../src/projections/runner.js';
import { memoryEvents } from './support/events.js';

// Given a store at synchronous=FULL, when the log appends, then the append is acknowledged only
// after the WAL file is synced off the event loop's thread, and a failed sync stops every later append.
const dirs: string[] = [];
const dbs: SqliteDatabase[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function store(synchronous: 'FULL' | 'NORMAL' = 'FULL') {
  const dir = mkdtempSync(join(tmpdir(), 'lmem-walsync-'));
  dirs.push(dir);
  const path = join(dir, 'store.db');
  const db = openDatabase(path, { synchronous });
  dbs.push(db);
  return { db, path };
}

/** A sync held until released: records the log head a second connection sees when each sync starts. */
function gatedSync(path: string) {
  const reader = () => {
    const db = openReadOnly(path);
    dbs.push(db);
    return db.prepare<[], { head: number | null }>('SELECT max(global_position) AS head FROM events');
  };
  let head: ReturnType<typeof reader> | null = null;
  const started: { file: string; coveredHead: number; release: (error?: Error) => void }[] = [];
  const sync: FileSync = (file) =>
    new Promise<void>((resolve, reject) => {
      head ??= reader();
      started.push({ file, coveredHead: head.get()?.head ?? 0, release: (error) => (error ? reject(error) : resolve()) });
    });
  return { sync, started };
}

/** A log on a fresh store whose WAL syncs wait on a gate. */
function gatedLog(synchronous: 'FULL' | 'NORMAL' = 'FULL') {
  const { db, path } = store(synchronous);
  const gate = gatedSync(path);
  return { db, path, gate, log: createSqliteEventLog(db, { fileSync: gate.sync }) };
}

const settledState = async (p: Promise<unknown>): Promise<'pending' | 'resolved' | 'rejected'> => {
  let state: 'pending' | 'resolved' | 'rejected' = 'pending';
  p.then(() => (state = 'resolved'), () => (state = 'rejected'));
  for (let i = 0; i < 5; i += 1) await new Promise((r) => setImmediate(r));
  return state;
};

describe('the log syncs its WAL off the event loop before acknowledging an append', () => {
  it('commits, syncs the -wal file, and only then resolves; the connection stays at FULL', async () => {
    const { db, path, gate, log } = gatedLog();
    const appending = log.append('memory-a', memoryEvents('a', 2));
    expect(await settledState(appending)).toBe('pending');
    expect(gate.started).toHaveLength(1);
    expect(gate.started[0]?.file).toBe(`${path}-wal`);
    // Committed before the sync began: another connection already reads both events.
    expect(gate.started[0]?.coveredHead).toBe(2);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    gate.started[0]?.release();
    expect((await appending).lastPosition).toBe(2n);
  });

  it('gives commits made during a sync a sync that starts after them', async () => {
    const { gate, log } = gatedLog();
    const first = log.append('memory-a', memoryEvents('a', 1));
    await settledState(first);
    const second = log.append('memory-b', memoryEvents('b', 1));
    const third = log.append('memory-c', memoryEvents('c', 1));
    expect(await settledState(second)).toBe('pending');
    expect(gate.started).toHaveLength(1);
    gate.started[0]?.release();
    expect((await first).lastPosition).toBe(1n);
    expect(await settledState(second)).toBe('pending');
    // One more sync for both, started once both were committed.
    expect(gate.started).toHaveLength(2);
    expect(gate.started[1]?.coveredHead).toBe(3);
    gate.started[1]?.release();
    expect([(await second).lastPosition, (await third).lastPosition]).toEqual([2n, 3n]);
  });

  it('rejects the append whose sync failed and refuses every later one', async () => {
    const { gate, log } = gatedLog();
    const appending = log.append('memory-a', memoryEvents('a', 1));
    await settledState(appending);
    gate.started[0]?.release(new Error('EIO: i/o error, fdatasync'));
    await expect(appending).rejects.toThrow(WalSyncError);
    await expect(appending).rejects.toThrow(/EIO/);
    await expect(log.append('memory-b', memoryEvents('b', 1))).rejects.toThrow(WalSyncError);
    expect(await log.headPosition()).toBe(1n);
  });

  it('leaves a store opened at NORMAL to SQLite, as it asked for no fsync per commit', async () => {
    const { gate, log } = gatedLog('NORMAL');
    expect((await log.append('memory-a', memoryEvents('a', 1))).lastPosition).toBe(1n);
    expect(gate.started).toHaveLength(0);
  });

  it('syncs for real with the default: concurrent appends are all acknowledged and read back by another connection', async () => {
    const { db, path } = store();
    const log = createSqliteEventLog(db);
    const results = await Promise.all(['a', 'b', 'c'].map((id) => log.append(`memory-${id}`, memoryEvents(id, 2))));
    expect(results.map((r) => r.lastPosition).sort()).toEqual([2n, 4n, 6n]);
    const other = openReadOnly(path);
    dbs.push(other);
    expect(other.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 6 });
  });
});

// Given the same gated sync, when an append names `onCommitted`, then it is called once the events
// are committed and readable, before the sync lets the append resolve: a write's read models apply
// it meanwhile (write-path.ts), and what they build is lost, if ever, only with the append.
describe('onCommitted: the events readable before the append is durable', () => {
  it('is called with the events readable while the sync is held, for append and appendAll', async () => {
    const { gate, log } = gatedLog();
    const seen: bigint[][] = [];
    const note = () => void log.readAll().then((page) => seen.push(page.map((e) => e.globalPosition)));
    const one = log.append('memory-a', memoryEvents('a', 2), { onCommitted: note });
    expect(await settledState(one)).toBe('pending');
    expect(seen).toEqual([[1n, 2n]]);
    gate.started[0]?.release();
    await one;
    const many = log.appendAll?.([{ streamId: 'memory-b', events: memoryEvents('b', 1) }, { streamId: 'memory-c', events: memoryEvents('c', 1) }], { onCommitted: note });
    expect(await settledState(many as Promise<unknown>)).toBe('pending');
    expect(seen[1]).toEqual([1n, 2n, 3n, 4n]);
    gate.started[1]?.release();
    expect((await many)?.map((r) => r.lastPosition)).toEqual([3n, 4n]);
  });

  it('is not called when the append is refused before its commit', async () => {
    const { log } = gatedLog('NORMAL');
    await log.append('memory-a', memoryEvents('a', 1));
    let called = 0;
    await expect(log.append('memory-a', memoryEvents('a', 1), { expectedRevision: 'no_stream', onCommitted: () => (called += 1) })).rejects.toThrow(ConcurrencyError);
    expect(called).toBe(0);
  });

  it('lets a catch-up started there bring a read model to the head while the sync is held', async () => {
    const { db, gate, log } = gatedLog();
    const runner = createProjectionRunner({ db, log, projections: [documentsProjection] });
    await runner.catchUp();
    let caughtUp: Promise<void> | undefined;
    const appending = log.append('memory-a', memoryEvents('a', 1), { onCommitted: () => void (caughtUp = runner.catchUp()) });
    expect(await settledState(appending)).toBe('pending');
    await caughtUp;
    expect(runner.status()[0]?.checkpoint).toBe(1n);
    expect(await settledState(appending)).toBe('pending');
    gate.started[0]?.release();
    await appending;
    await runner.stop();
  });
});

