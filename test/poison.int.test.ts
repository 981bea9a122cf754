import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../src/events/log/event-log.js';
import { sqliteLockedHead } from '../src/events/log/sqlite-event-log.js';
import { documentsProjection } from '../src/projections/documents.js';
import { ProjectionFailedError } from '../src/projections/failure.js';
import { ftsProjection } from '../src/projections/fts.js';
import type { Projection } from '../src/projections/projection.js';
import { createProjectionRunner } from '../src/projections/runner.js';
import { memoryWrittenEvent } from './support/events.js';
import { writeTestMemory } from './support/memory-events.js';
import { openTestStore, type TestStore } from './support/store.js';

// A test-only read model (one row per memory) whose apply throws on one text: a poison event for it alone.
const poison = 'poison-marker';
const counting = (throwsOnPoison: boolean): Projection => ({
  name: 'counting',
  version: 1,
  tables: [{ name: 'counted', key: 'memory_id' }],
  handles: ['MemoryWritten'],
  init: (tx) => tx.exec(`CREATE TABLE IF NOT EXISTS ${tx.table('counted')} (memory_id TEXT PRIMARY KEY)`),
  apply(batch: readonly RecordedEvent[], tx) {
    for (const event of batch) {
      const data = event.data as { memoryId: string; text: string };
      if (throwsOnPoison && data.text.includes(poison)) throw new RangeError('Maximum call stack size exceeded');
      tx.run(`INSERT INTO ${tx.table('counted')} (memory_id) VALUES (?)`, data.memoryId);
    }
  },
});

const runnerOn = (store: TestStore, failing: boolean) =>
  createProjectionRunner({
    db: store.db, log: store.log, projections: [documentsProjection, ftsProjection, counting(failing)], pageSize: 4, lockedHead: sqliteLockedHead(store.db),
  });
const countIn = (store: TestStore, runner: ReturnType<typeof runnerOn>, name: string, table: string) =>
  (store.db.prepare(`SELECT count(*) AS n FROM ${runner.liveTable(name, table)}`).get() as { n: number }).n;

/** Ten memories with the poison one in the middle; returns where the poison one landed. */
async function fill(target: TestStore) {
  for (let n = 0; n < 5; n += 1) await writeTestMemory(target.log, n);
  const bad = await target.log.append('memory-poison', [memoryWrittenEvent('m-poison', `text ${poison}`)]);
  for (let n = 5; n < 10; n += 1) await writeTestMemory(target.log, n);
  return bad;
}

let store: TestStore;
afterEach(() => store?.close());

describe('a poison event (ADR 23)', () => {
  it('stops only the read model that cannot apply it, persisted, with position and error; a fix plus rebuild recovers it', async () => {
    store = openTestStore([]);
    const bad = await fill(store);
    const head = await store.log.headPosition();

    const runner = runnerOn(store, true);
    await runner.catchUp();
    const byName = new Map(runner.status().map((s) => [s.name, s]));
    // The others follow the log to its head and serve.
    expect(byName.get('documents')).toMatchObject({ checkpoint: head, failed: null });
    expect(byName.get('fts')).toMatchObject({ checkpoint: head, failed: null });
    expect(countIn(store, runner, 'documents', 'documents')).toBe(11);
    // The poisoned one applied everything before the event, nothing from it on, and says where and why.
    const failed = byName.get('counting');
    expect(failed?.checkpoint).toBe(bad.lastPosition - 1n);
    expect(failed?.failed).toEqual({ position: bad.lastPosition, error: 'RangeError: Maximum call stack size exceeded' });
    expect(() => runner.liveTable('counting', 'counted')).toThrow(ProjectionFailedError);
    expect(() => runner.liveTable('counting', 'counted')).toThrow(`failed at log position ${bad.lastPosition}`);
    // Catching up again does not retry it (nor throw).
    await writeTestMemory(store.log, 10);
    await runner.catchUp();
    expect(countIn(store, runner, 'documents', 'documents')).toBe(12);
    expect(runner.status().find((s) => s.name === 'counting')?.failed?.position).toBe(bad.lastPosition);

    // Persisted: a new process (a new runner on the same file) still sees it failed.
    const reopened = runnerOn(store, true);
    await reopened.catchUp();
    expect(reopened.status().find((s) => s.name === 'counting')?.failed?.position).toBe(bad.lastPosition);
    // A rebuild with the projection still broken fails and leaves the failed generation as it was.
    await expect(reopened.rebuild('counting')).rejects.toThrow(`stopped at log position ${bad.lastPosition}`);
    expect(reopened.status().find((s) => s.name === 'counting')?.failed?.position).toBe(bad.lastPosition);

    // The fix, then `rebuild counting`: it serves every memory again, as a fresh replay would.
    const fixed = runnerOn(store, false);
    await fixed.rebuild('counting');
    await fixed.catchUp();
    expect(fixed.status().find((s) => s.name === 'counting')?.failed).toBeNull();
    expect(countIn(store, fixed, 'counting', 'counted')).toBe(12);
    const fresh = openTestStore([]);
    try {
      await fill(fresh);
      await writeTestMemory(fresh.log, 10);
      const replayed = runnerOn(fresh, false);
      await replayed.catchUp();
      expect(fixed.digest('counting')).toBe(replayed.digest('counting'));
    } finally {
      fresh.close();
    }
  });

  it('a corrupt event in the log stops every read model at it instead of failing the open', async () => {
    store = openTestStore([]);
    for (let n = 0; n < 6; n += 1) await writeTestMemory(store.log, n);
    store.db.prepare("UPDATE events SET data = '{not json' WHERE global_position = 4").run();
    const runner = runnerOn(store, false);
    await runner.catchUp();
    for (const s of runner.status()) {
      expect(s.checkpoint).toBe(3n);
      expect(s.failed?.position).toBe(4n);
      expect(s.failed?.error).toMatch(/^CorruptEventError/);
    }
  });
});
