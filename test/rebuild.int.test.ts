import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../src/events/log/event-log.js';
import { documentsProjection } from '../src/projections/documents.js';
import { ftsProjection } from '../src/projections/fts.js';
import type { Projection } from '../src/projections/projection.js';
import { createProjectionRunner } from '../src/projections/runner.js';
import { sqliteLockedHead } from '../src/events/log/sqlite-event-log.js';
import { writeTestMemory } from './support/memory-events.js';
import { openTestStore, type TestStore } from './support/store.js';

const write = (store: TestStore, n: number) => writeTestMemory(store.log, n);

const countRows = (store: TestStore) =>
  (store.db.prepare(`SELECT count(*) AS n FROM ${store.runner.liveTable('documents', 'documents')}`).get() as { n: number }).n;

let store: TestStore;
afterEach(() => store?.close());

describe('shadow rebuild', () => {
  it('keeps the live generation serving and applies events appended during the rebuild before switching', async () => {
    store = openTestStore([documentsProjection], 10);
    for (let n = 0; n < 200; n += 1) await write(store, n);
    await store.runner.catchUp();
    const before = store.runner.status()[0];
    const rebuilding = store.runner.rebuild('documents');
    // While the shadow fills page by page, the live generation still answers and still takes writes.
    for (let n = 200; n < 230; n += 1) {
      await write(store, n);
      expect(store.runner.status()[0]?.generation).toBe(before?.generation);
      expect(countRows(store)).toBeGreaterThanOrEqual(200);
    }
    const result = await rebuilding;
    expect(result.generation).toBe((before?.generation ?? 0) + 1);
    expect(store.runner.status()[0]?.generation).toBe(result.generation);
    expect(countRows(store)).toBe(230);
    expect(result.position).toBe(await store.log.headPosition());
    // The retired generation's tables are dropped after the switch, in slices.
    await store.runner.idle();
    const oldTable = store.db.prepare("SELECT name FROM sqlite_master WHERE name = ?").get(`documents_g${before?.generation}`);
    expect(oldTable).toBeUndefined();
  });

  it('resumes a shadow generation left behind from its checkpoint', async () => {
    store = openTestStore([documentsProjection], 10);
    for (let n = 0; n < 50; n += 1) await write(store, n);
    await store.runner.catchUp();
    // A rebuild that was killed: a building generation with part of the log applied.
    store.db.prepare("INSERT INTO projection_generations (name, generation, version, status, checkpoint) VALUES ('documents', 2, 1, 'building', 20)").run();
    store.db.exec('CREATE TABLE documents_g2 AS SELECT * FROM documents_g1 WHERE last_position <= 20');
    store.db.exec('CREATE TABLE memory_vitals_g2 AS SELECT * FROM memory_vitals_g1 WHERE memory_id IN (SELECT memory_id FROM documents_g2)');
    const result = await store.runner.rebuild('documents');
    expect(result.resumed).toBe(true);
    expect(result.generation).toBe(2);
    expect(countRows(store)).toBe(50);
  });

  it('leaves the live generation in place when the rebuild fails', async () => {
    store = openTestStore([documentsProjection], 10);
    for (let n = 0; n < 30; n += 1) await write(store, n);
    await store.runner.catchUp();
    const digest = store.runner.digest('documents');
    let calls = 0;
    const failing: Projection = {
      ...documentsProjection,
      apply(batch: readonly RecordedEvent[], tx) {
        calls += 1;
        if (calls > 1) throw new Error('provider down');
        documentsProjection.apply(batch, tx);
      },
    };
    const runner = createProjectionRunner({ db: store.db, log: store.log, projections: [failing], pageSize: 10, lockedHead: sqliteLockedHead(store.db) });
    await expect(runner.rebuild('documents')).rejects.toThrow('provider down');
    expect(store.runner.digest('documents')).toBe(digest);
    const failed = store.db.prepare("SELECT status FROM projection_generations WHERE name = 'documents' AND generation = 2").get();
    expect(failed).toEqual({ status: 'failed' });
    expect(store.db.prepare("SELECT name FROM sqlite_master WHERE name = 'documents_g2'").get()).toBeUndefined();
  });

  it('rebuilds on start when the projection version changed', async () => {
    store = openTestStore([documentsProjection], 10);
    for (let n = 0; n < 5; n += 1) await write(store, n);
    await store.runner.catchUp();
    const digest = store.runner.digest('documents');
    const v2 = { ...documentsProjection, version: documentsProjection.version + 1 };
    const runner = createProjectionRunner({ db: store.db, log: store.log, projections: [v2], lockedHead: sqliteLockedHead(store.db) });
    await runner.catchUp();
    expect(runner.status()[0]).toMatchObject({ version: documentsProjection.version + 1, generation: 2 });
    expect(runner.digest('documents')).toBe(digest);
  });

  it('rebuilds several projections in one replay: each page read once, a resumed shadow and a fresh one, appends during it applied', async () => {
    store = openTestStore([documentsProjection, ftsProjection], 10);
    for (let n = 0; n < 60; n += 1) await write(store, n);
    await store.runner.catchUp();
    const digests = { documents: store.runner.digest('documents'), fts: store.runner.digest('fts') };
    // documents has a shadow a killed rebuild left at position 20; fts starts from nothing.
    store.db.prepare("INSERT INTO projection_generations (name, generation, version, status, checkpoint) VALUES ('documents', 2, ?, 'building', 20)").run(documentsProjection.version);
    store.db.exec('CREATE TABLE documents_g2 AS SELECT * FROM documents_g1 WHERE last_position <= 20');
    store.db.exec('CREATE TABLE memory_vitals_g2 AS SELECT * FROM memory_vitals_g1 WHERE memory_id IN (SELECT memory_id FROM documents_g2)');
    const reads: bigint[] = [];
    const log = { ...store.log, readAll: async (o?: { from?: bigint; limit?: number }) => (reads.push(o?.from ?? 1n), store.log.readAll(o)) };
    const runner = createProjectionRunner({ db: store.db, log, projections: [documentsProjection, ftsProjection], pageSize: 10, lockedHead: sqliteLockedHead(store.db) });
    const rebuilding = runner.rebuildAll(['documents', 'fts']);
    for (let n = 60; n < 65; n += 1) await write(store, n);
    const results = await rebuilding;
    expect(results.map((r) => [r.projection, r.resumed])).toEqual([['documents', true], ['fts', false]]);
    // Pages from the one furthest behind: every position is read once, whichever shadow needs it.
    expect(new Set(reads).size).toBe(reads.length);
    await store.runner.catchUp();
    expect(countRows(store)).toBe(65);
    expect(results.map((r) => r.position)).toEqual([await store.log.headPosition(), await store.log.headPosition()]);
    // The same digests as the incremental projections given the same log.
    const fresh = openTestStore([documentsProjection, ftsProjection], 10);
    try {
      for (let n = 0; n < 65; n += 1) await writeTestMemory(fresh.log, n);
      await fresh.runner.catchUp();
      expect(runner.digest('documents')).toBe(fresh.runner.digest('documents'));
      expect(runner.digest('fts')).toBe(fresh.runner.digest('fts'));
      expect(digests.documents).not.toBe(fresh.runner.digest('documents'));
    } finally {
      fresh.close();
    }
  });

  it('goes live: appends are projected without an explicit catch-up', async () => {
    store = openTestStore([documentsProjection], 10);
    await store.runner.start();
    await write(store, 1);
    await expect.poll(() => countRows(store), { timeout: 5000 }).toBe(1);
    await store.runner.stop();
  });
});
