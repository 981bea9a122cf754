import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  approximateBuilt,
  approximateEfSearch,
  approximateSettled,
  approximateStarted,
  buildAfterSearches,
  searchVectors,
  stopApproximate,
  type ApproximateSettings,
} from '../src/projections/vectors/approximate-index.js';
import type { FlatIndex } from '../src/projections/vectors/flat-index.js';

const searcherOf = (s: ApproximateSettings) => ({ search: (index: FlatIndex, q: Float32Array, k: number) => searchVectors(index, q, k, s) });
import { createFlatIndex } from '../src/projections/vectors/flat-index.js';

const dimension = 16;

/** A unit vector from a seed (a small LCG), so runs are exact. */
function unitVector(seed: number): Float32Array {
  const v = new Float32Array(dimension);
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < dimension; i += 1) {
    x = (x * 1103515245 + 12345) % 2147483648;
    v[i] = x / 2147483648 - 0.5;
  }
  const norm = Math.hypot(...v);
  return v.map((c) => c / norm);
}

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, c, i) => s + c * (b[i] as number), 0);
const settings = { minVectors: 50, m: 16, efSearch: 64 };

type Op = { kind: 'add'; id: number; seed: number } | { kind: 'remove'; id: number };
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), id: fc.nat(300), seed: fc.nat(10_000) }),
  fc.record({ kind: fc.constant('remove' as const), id: fc.nat(300) }),
);

describe('approximate vector index (ADR 8)', () => {
  it('given any adds, replacements and removals, when searched, then every hit is a live vector with its exact cosine', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 60, maxLength: 400 }), fc.array(fc.nat(10_000), { minLength: 1, maxLength: 5 }), async (ops, queries) => {
        const exact = createFlatIndex(dimension);
        const searcher = searcherOf(settings);
        const live = new Map<string, Float32Array>();
        // The approximate index is started half-way (in the background), so later changes must be followed.
        for (const [i, o] of ops.entries()) {
          const id = `m${o.id}`;
          if (o.kind === 'add') {
            exact.upsertMany([{ id, vector: unitVector(o.seed) }]);
            live.set(id, unitVector(o.seed));
          } else {
            exact.removeMany([id]);
            live.delete(id);
          }
          if (i === Math.floor(ops.length / 2)) {
            void approximateBuilt(exact, settings);
            await searcher.search(exact, unitVector(1), 5);
          }
        }
        // Built in the background from half-way: the queries go through it.
        await approximateBuilt(exact, settings);
        for (const seed of queries) {
          const query = unitVector(seed);
          const hits = await searcher.search(exact, query, 10);
          expect(hits).toHaveLength(Math.min(10, live.size));
          for (const hit of hits) {
            const vector = live.get(hit.id);
            expect(vector).toBeDefined();
            expect(hit.score).toBeCloseTo(dot(query, vector as Float32Array), 4);
          }
          expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('given fewer vectors than minVectors, when searched, then the hits are the exact index own', async () => {
    const exact = createFlatIndex(dimension);
    exact.upsertMany(Array.from({ length: 40 }, (_, i) => ({ id: `m${i}`, vector: unitVector(i) })));
    const searcher = searcherOf(settings);
    expect(await searcher.search(exact, unitVector(99), 10)).toEqual(exact.searchNow(unitVector(99), 10));
  });

  it('given 3,000 vectors, when searched approximately, then it finds at least 95% of the exact 10 nearest', async () => {
    const exact = createFlatIndex(dimension);
    exact.upsertMany(Array.from({ length: 3_000 }, (_, i) => ({ id: `m${i}`, vector: unitVector(i) })));
    const wide = { ...settings, m: 32, efSearch: 128 };
    const searcher = searcherOf(wide);
    await approximateBuilt(exact, wide);
    let found = 0;
    for (let q = 0; q < 100; q += 1) {
      const query = unitVector(50_000 + q);
      const truth = await exact.search(query, 10);
      const tenth = (truth.at(-1) as { score: number }).score;
      found += (await searcher.search(exact, query, 10)).filter((h) => h.score >= tenth - 1e-6).length;
    }
    expect(found / 1_000).toBeGreaterThanOrEqual(0.95);
  });

  it('given a build in flight, when searched, then the exact index answers at once, and changes made meanwhile are followed', async () => {
    const exact = createFlatIndex(dimension);
    exact.upsertMany(Array.from({ length: 200 }, (_, i) => ({ id: `m${i}`, vector: unitVector(i) })));
    const query = unitVector(7);
    // The first search starts the build and is answered exactly.
    expect(await searchVectors(exact, query, 5, settings)).toEqual(await exact.search(query, 5));
    const building = approximateBuilt(exact, settings);
    // While the build posts its vectors: m7 replaced by another vector, m8 removed, m500 added as the query itself.
    exact.upsertMany([{ id: 'm7', vector: unitVector(9_999) }, { id: 'm500', vector: query }]);
    exact.removeMany(['m8']);
    await building;
    const hits = await searchVectors(exact, query, 10, settings);
    expect(hits[0]).toMatchObject({ id: 'm500' });
    expect(hits[0]?.score).toBeCloseTo(1, 4);
    expect(hits.map((h) => h.id)).not.toContain('m8');
    const m7 = hits.find((h) => h.id === 'm7');
    if (m7) expect(m7.score).toBeCloseTo(dot(query, unitVector(9_999)), 4);
  });

  it('given a build in flight, when its store closes, then the build posts no more vectors and the exact index answers', async () => {
    const exact = createFlatIndex(dimension);
    // Three chunks of the build's posting.
    exact.upsertMany(Array.from({ length: 5_000 }, (_, i) => ({ id: `m${i}`, vector: unitVector(i) })));
    const building = approximateBuilt(exact, settings);
    stopApproximate(exact);
    await expect(building).rejects.toThrow(/stopped/);
    await approximateSettled();
    const query = unitVector(3);
    expect(await searchVectors(exact, query, 5, settings)).toEqual(await exact.search(query, 5));
  });

  it('given a built index, when its efSearch is set again (the bench sweep), then it still finds the exact nearest', async () => {
    const exact = createFlatIndex(dimension);
    exact.upsertMany(Array.from({ length: 600 }, (_, i) => ({ id: `m${i}`, vector: unitVector(i) })));
    await expect(approximateEfSearch(exact, 64)).rejects.toThrow(/no approximate index/);
    await approximateBuilt(exact, settings);
    for (const efSearch of [128, 32, 256]) {
      await approximateEfSearch(exact, efSearch);
      // The query is a stored vector: its nearest is itself, at cosine 1.
      expect((await searchVectors(exact, unitVector(42), 1, settings))[0]).toMatchObject({ id: 'm42' });
    }
  });

  it('given a process that searches a few times, when it searches, then no approximate index is built for it', async () => {
    const exact = createFlatIndex(dimension);
    exact.upsertMany(Array.from({ length: 100 }, (_, i) => ({ id: `m${i}`, vector: unitVector(i) })));
    for (let i = 0; i < buildAfterSearches; i += 1) expect(await searchVectors(exact, unitVector(i), 3, settings)).toEqual(await exact.search(unitVector(i), 3));
    expect(approximateStarted(exact)).toBe(false);
    await searchVectors(exact, unitVector(0), 3, settings);
    expect(approximateStarted(exact)).toBe(true);
    await approximateBuilt(exact, settings);
  });
});
