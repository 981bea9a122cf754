import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFlatIndex } from '../src/projections/vectors/flat-index.js';
import { stageIndexWrites } from '../src/projections/vectors/staged-index.js';

const dimension = 4;
const vectorOf = (seed: number): Float32Array => Float32Array.from({ length: dimension }, (_, i) => Math.sin(seed * 7 + i));

type Write = { kind: 'upsert'; ids: number[]; seed: number } | { kind: 'remove'; ids: number[] };
const ids = fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 3 });
const write: fc.Arbitrary<Write> = fc.oneof(
  fc.record({ kind: fc.constant('upsert' as const), ids, seed: fc.integer({ min: 0, max: 1000 }) }),
  fc.record({ kind: fc.constant('remove' as const), ids }),
);

describe('a page of index writes held and made at its end', () => {
  it('leaves the index exactly as the same writes made one by one: ids in the same positions, the same vectors', () => {
    fc.assert(
      fc.property(fc.array(write, { maxLength: 6 }), fc.array(write, { maxLength: 12 }), (before, page) => {
        const direct = createFlatIndex(dimension);
        const staged = createFlatIndex(dimension);
        const apply = (target: Pick<typeof direct, 'removeMany' | 'upsertMany'>, w: Write): void => {
          if (w.kind === 'remove') target.removeMany(w.ids.map(String));
          else target.upsertMany([...new Set(w.ids)].map((id) => ({ id: String(id), vector: vectorOf(w.seed + id) })));
        };
        for (const w of before) {
          apply(direct, w);
          apply(staged, w);
        }
        const stage = stageIndexWrites(staged);
        for (const w of page) {
          apply(direct, w);
          apply(stage.writes, w);
        }
        stage.commit();
        expect(staged.ids()).toEqual(direct.ids());
        expect(staged.entries()).toEqual(direct.entries());
      }),
      { numRuns: 300 },
    );
  });
});
