import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stampEvents } from '../src/commands/decider.js';
import { sqliteLockedHead } from '../src/events/log/sqlite-event-log.js';
import { streams } from '../src/events/streams.js';
import { createVectorStore } from '../src/projections/vectors/vector-store.js';
import { testMetadata } from './support/decider-spec.js';
import { writeTestMemory } from './support/memory-events.js';
import { openTestStore, type TestStore } from './support/store.js';
import { testVectorSource, vectorFor } from './support/vector-source.js';

let store: TestStore;
let dir: string;
beforeEach(() => {
  store = openTestStore();
  dir = mkdtempSync(join(tmpdir(), 'lmem-vectors-'));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
const open = (source = testVectorSource()) =>
  createVectorStore({ db: store.db, log: store.log, dir, source, pageSize: 10, lockedHead: sqliteLockedHead(store.db) });

describe('vector store', () => {
  it('loads its snapshot on start and catches up from the snapshot checkpoint', async () => {
    for (let n = 0; n < 30; n += 1) await writeTestMemory(store.log, n);
    const first = open();
    await first.catchUp();
    await first.close();
    for (let n = 30; n < 35; n += 1) await writeTestMemory(store.log, n);
    const source = testVectorSource();
    const second = open(source);
    expect(second.status()).toMatchObject({ checkpoint: 30n, size: 30 });
    await second.catchUp();
    expect(second.status()).toMatchObject({ checkpoint: 35n, size: 35 });
    // Only the five new memories were looked up: the thirty came from the snapshot.
    expect(source.asked).toBe(5);
    const hit = await second.search(vectorFor(source.keyOf('memory number 7'), 8), 1);
    expect(hit[0]?.id).toBe('m7');
    await second.close();
  });

  it('keeps a memory whose embedding is missing pending, and indexes it when repaired', async () => {
    let down = true;
    const source = testVectorSource(8, (text) => down && text.includes('3'));
    const vectors = open(source);
    for (let n = 0; n < 5; n += 1) await writeTestMemory(store.log, n);
    await vectors.catchUp();
    expect([...vectors.pending().keys()]).toEqual(['m3']);
    expect(vectors.ids()).not.toContain('m3');
    down = false;
    const repaired = { type: 'MemoryEmbeddingRepaired' as const, schemaVersion: 1 as const, data: { memoryId: 'm3', fingerprint: source.fingerprint } };
    await store.log.append(streams.memory('m3'), stampEvents([repaired], testMetadata(99)));
    await vectors.catchUp();
    expect(vectors.ids()).toContain('m3');
    expect(vectors.pending().size).toBe(0);
    await vectors.close();
  });

  it('does not switch a rebuild above the 2% failure ratio', async () => {
    for (let n = 0; n < 100; n += 1) await writeTestMemory(store.log, n);
    const healthy = open();
    await healthy.catchUp();
    const digest = healthy.digest();
    await healthy.close();
    // Three of a hundred embeddings missing: 3% > 2%.
    const failing = open(testVectorSource(8, (text) => /number (1|2|3)$/.test(text)));
    const result = await failing.rebuild();
    expect(result).toMatchObject({ status: 'partial', pending: 3 });
    expect(failing.digest()).toBe(digest);
    expect(failing.status().generation).toBe(1);
    // Two missing stays under the ratio and switches.
    const mostly = await open(testVectorSource(8, (text) => /number (1|2)$/.test(text))).rebuild();
    expect(mostly).toMatchObject({ status: 'completed', pending: 2 });
  });

  it('cancels a rebuild on request and resumes it later from its checkpoint', async () => {
    for (let n = 0; n < 50; n += 1) await writeTestMemory(store.log, n);
    const vectors = open();
    await vectors.catchUp();
    const controller = new AbortController();
    const cancelled = await vectors.rebuild({
      persistEvery: 10,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.checkpoint >= 20n) controller.abort();
      },
    });
    expect(cancelled).toMatchObject({ status: 'cancelled', checkpoint: 20n });
    const resumed = await vectors.rebuild({ persistEvery: 10 });
    expect(resumed).toMatchObject({ status: 'completed', resumed: true, checkpoint: 50n, size: 50 });
    await vectors.close();
  });
});
