import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { projectionsAt } from '../src/replay/state-at.js';
import { createGenerationWriter } from '../src/projections/apply.js';
import { documentsProjection } from '../src/projections/documents.js';
import { createGenerationStore } from '../src/projections/generations.js';
import { historyArbitrary, playHistory } from './support/histories.js';
import { openTestStore } from './support/store.js';

const runs = { numRuns: 200 };

describe('documents projection over random histories', () => {
  it('(a) built incrementally or wiped and replayed, the digest is the same', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, async (history) => {
        const store = openTestStore();
        try {
          await playHistory(store.log, history, () => store.runner.catchUp());
          await store.runner.catchUp();
          const incremental = store.runner.digest('documents');
          const rebuilt = await store.runner.rebuild('documents');
          expect(rebuilt.digest).toBe(incremental);
          expect(store.runner.digest('documents')).toBe(incremental);
        } finally {
          store.close();
        }
      }),
      runs,
    );
  });

  it('(b) the state replayed up to any position P is the state of a log holding only the first P events', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, fc.double({ min: 0, max: 1, noNaN: true }), async (history, cut) => {
        const full = openTestStore();
        const prefix = openTestStore();
        try {
          await playHistory(full.log, history, async () => undefined);
          const head = await full.log.headPosition();
          const p = BigInt(Math.floor(Number(head) * cut));
          for (const e of await full.log.readAll({ to: p, limit: 10_000 })) {
            const { streamId, streamRevision: _r, globalPosition: _g, ...event } = e;
            await prefix.log.append(streamId, [event]);
          }
          await prefix.runner.catchUp();
          const at = await projectionsAt(full.log, [documentsProjection], p);
          try {
            expect(at.runner.digest('documents')).toBe(prefix.runner.digest('documents'));
            expect(at.runner.status()[0]?.checkpoint).toBe(p);
          } finally {
            at.close();
          }
        } finally {
          full.close();
          prefix.close();
        }
      }),
      runs,
    );
  });

  it('applying the same pages again changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, fc.integer({ min: 2, max: 4 }), async (history, times) => {
        const store = openTestStore();
        try {
          await playHistory(store.log, history, async () => undefined);
          await store.runner.catchUp();
          const once = store.runner.digest('documents');
          const live = createGenerationStore(store.db).live('documents');
          if (!live) throw new Error('no live generation');
          const writer = createGenerationWriter(store.db, createGenerationStore(store.db), documentsProjection, live);
          const page = await store.log.readAll({ limit: 10_000 });
          for (let i = 0; i < times; i += 1) writer.applyPage(page);
          expect(store.runner.digest('documents')).toBe(once);
        } finally {
          store.close();
        }
      }),
      { numRuns: 50 },
    );
  });
});
