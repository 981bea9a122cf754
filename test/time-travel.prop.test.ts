import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineProjections } from '../src/engine/engine.js';
import { createVectorStore } from '../src/projections/vectors/vector-store.js';
import { openTimeTravelView } from '../src/replay/time-travel.js';
import { historyArbitrary, playHistory } from './support/histories.js';
import { runEngineOp } from './support/engine-ops.js';
import { tempDir, testEnvironment } from './support/engine.js';
import { engineLogKinds, type EngineHost } from './support/log-kinds.js';
import { openTestStore } from './support/store.js';
import { testVectorSource } from './support/vector-source.js';
import type { RecallInput } from '../src/engine/inputs.js';

describe('time travel over random histories', () => {
  it('(a) the view at position P has the digests of a fresh store fed only the first P events', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, fc.double({ min: 0, max: 1, noNaN: true }), async (history, cut) => {
        const full = openTestStore(engineProjections);
        const prefix = openTestStore(engineProjections);
        const source = testVectorSource(8, (text) => text.includes('x'));
        try {
          await playHistory(full.log, history, async () => undefined);
          const p = BigInt(Math.floor(Number(await full.log.headPosition()) * cut));
          for (const e of await full.log.readAll({ to: p, limit: 10_000 })) {
            const { streamId, streamRevision: _r, globalPosition: _g, ...event } = e;
            await prefix.log.append(streamId, [event]);
          }
          await prefix.runner.catchUp();
          const vectors = createVectorStore({ db: prefix.db, log: prefix.log, dir: join(prefix.dir, 'vectors'), source });
          await vectors.catchUp();
          const view = await openTimeTravelView({ log: full.log, projections: engineProjections, vectorSource: source }, { position: p });
          try {
            expect(view.position).toBe(p);
            for (const projection of engineProjections) {
              expect(view.state.runner.digest(projection.name)).toBe(prefix.runner.digest(projection.name));
            }
            expect(view.vectors.digest()).toBe(vectors.digest());
          } finally {
            view.close();
            await vectors.close();
          }
        } finally {
          full.close();
          prefix.close();
        }
      }),
      { numRuns: 40 },
    );
  });

});

describe.each(engineLogKinds)('time travel over random engine histories ($name)', (kind) => {
  let host: EngineHost;
  beforeAll(async () => {
    host = await kind.start();
  });
  afterAll(async () => {
    await host.stop();
  });
  const words = ['Alice', 'Bob', '茶', '南京市长江大桥', 'likes green tea', '明天去散步', 'works at Acme', '喜欢咖啡'];
  const text = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));
  const op = fc.oneof(
    fc.record({ kind: fc.constant('write' as const), text, session: fc.constantFrom('s1', 's2') }),
    fc.record({ kind: fc.constant('update' as const), target: fc.nat(9), text }),
    fc.record({ kind: fc.constant('forget' as const), target: fc.nat(9) }),
    fc.record({ kind: fc.constant('archive' as const), target: fc.nat(9) }),
    fc.record({ kind: fc.constant('recall' as const), query: text, session: fc.option(fc.constantFrom('s1', 's2'), { nil: null }) }),
  );

  it('(b) a recall at time T returns what the recall run at T returned', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        const temp = tempDir();
        const env = testEnvironment(Date.UTC(2026, 0, 1), 'tt');
        const engine = await host.open(temp.dir, { env });
        try {
          const ids: string[] = [];
          const recorded: { at: Date; head: bigint; input: RecallInput; answer: unknown }[] = [];
          for (const o of ops) {
            if (o.kind === 'recall') {
              const input = { query: o.query, scope: o.session ? { mode: 'session' as const, sessionId: o.session } : { mode: 'global' as const } };
              const at = env.now();
              const head = await engine.log.headPosition();
              recorded.push({ at, head, input, answer: (await engine.recall(input)).memories });
              continue;
            }
            await runEngineOp(engine, o, ids);
          }
          await engine.flushAccess();
          for (const r of recorded) {
            const past = await engine.at({ time: r.at });
            try {
              expect(past.position).toBe(r.head);
              const again = (await past.recall(r.input)).memories;
              expect(again.map((m) => m.memoryId)).toEqual((r.answer as typeof again).map((m) => m.memoryId));
              again.forEach((m, i) => {
                const then = (r.answer as typeof again)[i];
                expect(m.text).toBe(then?.text);
                expect(m.score).toBeCloseTo(then?.score ?? Number.NaN, 6);
              });
            } finally {
              past.close();
            }
          }
        } finally {
          await engine.close();
          temp.remove();
        }
      }),
      { numRuns: kind.runs(15) },
    );
  });
});
