import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineProjections } from '../src/engine/engine.js';
import { runEngineOp } from './support/engine-ops.js';
import { tempDir } from './support/engine.js';
import { engineLogKinds, type EngineHost } from './support/log-kinds.js';

const words = ['Alice', 'Bob', '茶', '南京市长江大桥', 'likes green tea', '明天去散步', 'works at Acme', '喜欢咖啡'];
const text = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));
const op = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), text, session: fc.constantFrom('s1', 's2'), participants: fc.subarray(['Alice', 'Bob']) }),
  fc.record({ kind: fc.constant('update' as const), target: fc.nat(9), text }),
  fc.record({ kind: fc.constant('forget' as const), target: fc.nat(9) }),
  fc.record({ kind: fc.constant('archive' as const), target: fc.nat(9) }),
);

describe.each(engineLogKinds)('every engine projection over random writes, updates and forgets ($name)', (kind) => {
  let host: EngineHost;
  beforeAll(async () => {
    host = await kind.start();
  });
  afterAll(async () => {
    await host.stop();
  });
  it('rebuilt from the log equals incremental, and every index holds exactly the live memories', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 15 }), async (ops) => {
        const temp = tempDir();
        const engine = await host.open(temp.dir);
        try {
          const ids: string[] = [];
          for (const o of ops) {
            await runEngineOp(engine, o, ids);
          }
          const live = new Set(engine.documents.list({ limit: 1000 }).filter((d) => d.status !== 'forgotten').map((d) => d.memoryId));
          expect(new Set(engine.indexes.vectors.ids())).toEqual(live);
          const entries = engine.indexes.graph.memoryOfEntries([...engine.indexes.graphVectors.ids()]);
          expect(new Set(entries.values())).toEqual(live);
          await engine.maintenance.start();
          expect(engine.maintenance.status().report).toMatchObject({
            ftsMismatch: 0, vectorMismatch: 0, graphMismatch: 0, graphVectorMismatch: 0, atomOrphans: 0,
          });
          for (const p of engineProjections) {
            const incremental = engine.runner.digest(p.name);
            expect((await engine.runner.rebuild(p.name)).digest).toBe(incremental);
          }
          for (const store of [engine.indexes.vectors, engine.indexes.graphVectors]) {
            const incremental = store.digest();
            await store.rebuild();
            expect(store.digest()).toBe(incremental);
          }
        } finally {
          await engine.close();
          temp.remove();
        }
      }),
      { numRuns: kind.runs(60) },
    );
  });
});
