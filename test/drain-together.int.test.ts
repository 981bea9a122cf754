import { afterEach, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../src/events/log/event-log.js';
import { openDatabase, type SqliteDatabase } from '../src/events/log/sqlite-database.js';
import { documentsProjection } from '../src/projections/documents.js';
import { ftsProjection } from '../src/projections/fts.js';
import type { Projection } from '../src/projections/projection.js';
import { memoryWrittenEvent } from './support/events.js';
import { writeTestMemory } from './support/memory-events.js';
import { openTestStore, type TestStore } from './support/store.js';

// A live catch-up applies a write's small page to every read model in one transaction (ADR 32,
// session 10). Seen from a second connection: while the last read model applies the page, the
// first one's checkpoint is not committed yet; with one transaction per read model it was.
const poison = 'poison-marker';
function spy(reader: () => SqliteDatabase, seen: bigint[]): Projection {
  return {
    name: 'spy',
    version: 1,
    tables: [{ name: 'spied', key: 'memory_id' }],
    handles: ['MemoryWritten'],
    init: (tx) => tx.exec(`CREATE TABLE IF NOT EXISTS ${tx.table('spied')} (memory_id TEXT PRIMARY KEY)`),
    apply(batch: readonly RecordedEvent[], tx) {
      const row = reader().prepare("SELECT checkpoint FROM projection_generations WHERE name = 'documents' AND status = 'live'").get() as { checkpoint: number };
      seen.push(BigInt(row.checkpoint));
      for (const event of batch) {
        const data = event.data as { memoryId: string; text: string };
        if (data.text.includes(poison)) throw new RangeError('cannot apply this one');
        tx.run(`INSERT INTO ${tx.table('spied')} (memory_id) VALUES (?)`, data.memoryId);
      }
    },
  };
}

let store: TestStore | undefined;
let reader: SqliteDatabase | undefined;
afterEach(() => {
  reader?.close();
  store?.close();
});

/** A store whose runner has caught up on five memories (so every read model has measured what they cost). */
async function caughtUp(seen: bigint[]) {
  const opened = openTestStore([documentsProjection, ftsProjection, spy(() => reader as SqliteDatabase, seen)], 100);
  store = opened;
  reader = openDatabase(opened.path);
  for (let n = 0; n < 5; n += 1) await writeTestMemory(opened.log, n);
  await opened.runner.catchUp();
  seen.length = 0;
  return opened;
}

const checkpoints = (s: TestStore) => new Map(s.runner.status().map((p) => [p.name, p.checkpoint]));

describe('a live catch-up of a small page', () => {
  it('commits the page to every read model at once', async () => {
    const seen: bigint[] = [];
    const s = await caughtUp(seen);
    const before = checkpoints(s).get('documents');
    await writeTestMemory(s.log, 5);
    await s.runner.catchUp();

    const head = await s.log.headPosition();
    expect(seen).toEqual([before]);
    expect([...checkpoints(s).values()]).toEqual([head, head, head]);
    expect(s.db.prepare(`SELECT count(*) AS n FROM ${s.runner.liveTable('spy', 'spied')}`).get()).toEqual({ n: 6 });
  });

  it('stops only the read model that cannot apply an event of it; the others take the whole page', async () => {
    const seen: bigint[] = [];
    const s = await caughtUp(seen);
    await writeTestMemory(s.log, 5);
    const bad = await s.log.append('memory-poison', [memoryWrittenEvent('m-poison', `text ${poison}`)]);
    await writeTestMemory(s.log, 6);
    await s.runner.catchUp();

    const head = await s.log.headPosition();
    const status = new Map(s.runner.status().map((p) => [p.name, p]));
    expect(status.get('documents')).toMatchObject({ checkpoint: head, failed: null });
    expect(status.get('fts')).toMatchObject({ checkpoint: head, failed: null });
    expect(status.get('spy')).toMatchObject({ checkpoint: bad.lastPosition - 1n, failed: { position: bad.lastPosition, error: 'RangeError: cannot apply this one' } });
    const documents = s.db.prepare(`SELECT count(*) AS n FROM ${s.runner.liveTable('documents', 'documents')}`).get();
    expect(documents).toEqual({ n: 8 });
  });
});
