import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteLockedHead } from '../src/events/log/sqlite-event-log.js';
import { createVectorStore } from '../src/projections/vectors/vector-store.js';
import { historyArbitrary, playHistory } from './support/histories.js';
import { openTestStore } from './support/store.js';
import { testVectorSource, vectorFor } from './support/vector-source.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);

describe('FAISS vector projection over random histories', () => {
  it('matches the live documents, an exact brute-force search, and its own rebuild', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, fc.string(), async (history, querySeed) => {
        const store = openTestStore();
        const dir = mkdtempSync(join(tmpdir(), 'lmem-vectors-'));
        const source = testVectorSource();
        const vectors = createVectorStore({ db: store.db, log: store.log, dir, source, pageSize: 5, lockedHead: sqliteLockedHead(store.db) });
        try {
          await playHistory(store.log, history, () => vectors.catchUp());
          await vectors.catchUp();
          await store.runner.catchUp();
          const live = store.db
            .prepare(`SELECT memory_id FROM ${store.runner.liveTable('documents', 'documents')} WHERE json_extract(metadata, '$.status') != 'forgotten'`)
            .pluck()
            .all() as string[];
          expect([...vectors.ids()].sort()).toEqual(live.sort());

          const query = vectorFor(querySeed, 8);
          const hits = await vectors.search(query, 5);
          // Live documents hold their latest text, which is what was embedded.
          const exact = store.db
            .prepare(`SELECT memory_id, text FROM ${store.runner.liveTable('documents', 'documents')} WHERE json_extract(metadata, '$.status') != 'forgotten'`)
            .all() as { memory_id: string; text: string }[];
          const scored = exact.map((d) => dot(query, vectorFor(source.keyOf(d.text), 8))).sort((a, b) => b - a);
          expect(hits.map((h) => h.score)).toEqual(scored.slice(0, 5).map((s) => expect.closeTo(s, 5)));

          const incremental = vectors.digest();
          const rebuilt = await vectors.rebuild();
          expect(rebuilt.status).toBe('completed');
          expect(vectors.digest()).toBe(incremental);
        } finally {
          await vectors.close();
          store.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 100 },
    );
  });
});

