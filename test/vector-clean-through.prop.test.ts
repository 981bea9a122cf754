import fc from 'fast-check';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stampEvents } from '../src/commands/decider.js';
import { sqliteLockedHead } from '../src/events/log/sqlite-event-log.js';
import { streams } from '../src/events/streams.js';
import { createVectorStore } from '../src/projections/vectors/vector-store.js';
import { historyArbitrary, playHistory } from './support/histories.js';
import { testMetadata } from './support/decider-spec.js';
import { openTestStore } from './support/store.js';
import { testVectorSource } from './support/vector-source.js';

/*
 * A vector store records how far past its snapshot no event changed it (vector_clean_through,
 * src/projections/vectors/snapshot-state.ts) and opens there. Whatever the history and wherever
 * the store is closed and opened again, the index must equal one replayed from the log alone.
 */

type TestStore = ReturnType<typeof openTestStore>;
const open = (store: TestStore, dir: string) =>
  createVectorStore({ db: store.db, log: store.log, dir, source: testVectorSource(), pageSize: 5, lockedHead: sqliteLockedHead(store.db) });

async function digestFromLog(store: TestStore): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'lmem-clean-fresh-'));
  // Another projection name space is not needed: a fresh folder has no snapshot, and the generation row is shared,
  // so the fresh store is read without writing (no close).
  const fresh = createVectorStore({ db: store.db, log: store.log, dir, source: testVectorSource(), pageSize: 5 });
  try {
    await fresh.rebuild({ fresh: true });
    return fresh.digest();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const write = (id: number, text: string) => ({ kind: 'write' as const, id, text, importance: 0.5, session: 1, persona: null, sources: [] });

async function accesses(store: TestStore, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    const body = { type: 'MemoriesAccessed' as const, schemaVersion: 1 as const, data: { batchId: `b${i}`, accesses: [{ memoryId: 'm1', count: 1, lastAccessedAt: '2026-01-01T00:00:00.000Z' }] } };
    await store.log.append(streams.access, stampEvents([body], testMetadata(i + 1000)));
  }
}

describe('vector store: opening past the events that change no vector', () => {
  it('given any history, closed and opened again at every catch-up (rebuilt at every other), then the index is the log\'s', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, async (history) => {
        const store = openTestStore();
        const dir = mkdtempSync(join(tmpdir(), 'lmem-clean-'));
        let vectors = open(store, dir);
        try {
          let points = 0;
          await playHistory(store.log, history, async () => {
            await vectors.catchUp();
            // Every other point, a rebuild switches to a new generation first (its shadow snapshot beside the live one).
            if ((points += 1) % 2 === 0) expect((await vectors.rebuild()).status).toBe('completed');
            await vectors.close();
            vectors = open(store, dir);
          });
          await vectors.catchUp();
          await vectors.close();
          vectors = open(store, dir);
          await vectors.catchUp();
          const reopened = vectors.digest();
          expect(vectors.status().checkpoint).toBe(await store.log.headPosition());
          await vectors.close();
          vectors = open(store, dir);
          expect(await digestFromLog(store)).toBe(reopened);
        } finally {
          await vectors.close();
          store.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 60 },
    );
  });

  it('given a snapshot, when only accesses follow, then the file is not written again and the next open starts past them', async () => {
    const store = openTestStore();
    const dir = mkdtempSync(join(tmpdir(), 'lmem-clean-'));
    try {
      let vectors = open(store, dir);
      await playHistory(store.log, [write(1, 'golden retriever'), write(2, 'piano lessons')], async () => undefined);
      await vectors.catchUp();
      await vectors.close();
      const [file] = readdirSync(dir).filter((f) => f.endsWith('.snap'));
      const written = statSync(join(dir, file as string)).mtimeMs;
      const snapshotAt = await store.log.headPosition();

      vectors = open(store, dir);
      await accesses(store, 150);
      await vectors.catchUp();
      await vectors.close();
      expect(statSync(join(dir, file as string)).mtimeMs).toBe(written);

      vectors = open(store, dir);
      // Before any catch-up: the open itself starts at the head, not at the snapshot's checkpoint.
      expect(vectors.status().checkpoint).toBe(await store.log.headPosition());
      expect(vectors.status().checkpoint).toBeGreaterThan(snapshotAt);
      await vectors.catchUp();
      expect(vectors.digest()).toBe(await digestFromLog(store));
      await vectors.close();
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('given a record past a newer snapshot, when an older snapshot file is found at open, then it replays from the older one', async () => {
    const store = openTestStore();
    const dir = mkdtempSync(join(tmpdir(), 'lmem-clean-'));
    try {
      let vectors = open(store, dir);
      await playHistory(store.log, [write(1, 'golden retriever')], async () => undefined);
      await vectors.catchUp();
      await vectors.close();
      const [file] = readdirSync(dir).filter((f) => f.endsWith('.snap'));
      copyFileSync(join(dir, file as string), join(dir, 'older'));

      vectors = open(store, dir);
      // The steps' ids number their events: the second write takes the second place.
      await playHistory(store.log, [{ kind: 'catchUp' }, write(2, 'piano lessons')], async () => undefined);
      await vectors.catchUp();
      await vectors.flush();
      await accesses(store, 20);
      await vectors.catchUp();
      await vectors.close();
      // The snapshot of before m2 comes back (a file restored by hand, a rename the disk lost): the record names another one.
      copyFileSync(join(dir, 'older'), join(dir, file as string));

      vectors = open(store, dir);
      await vectors.catchUp();
      expect([...vectors.ids()].sort()).toEqual(['m1', 'm2']);
      expect(vectors.digest()).toBe(await digestFromLog(store));
      await vectors.close();
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
