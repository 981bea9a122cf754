import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { newFaissIndex, readFaissIndex } from '../src/projections/vectors/faiss-host.js';

const dir = mkdtempSync(join(tmpdir(), 'lmem-faiss-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const dimension = 64;
const vectorOf = (seed: number): Float32Array => {
  const v = Float32Array.from({ length: dimension }, (_, i) => Math.sin(seed * 13 + i * 7));
  const norm = Math.hypot(...v);
  return v.map((c) => c / norm);
};
const flat = (seeds: readonly number[]): Float32Array => {
  const out = new Float32Array(seeds.length * dimension);
  seeds.forEach((seed, i) => out.set(vectorOf(seed), i * dimension));
  return out;
};

describe('exact FAISS indexes on their own thread (issue 17)', () => {
  it('given adds and removals posted without waiting, when searched, then the search sees every change posted before it', async () => {
    const index = newFaissIndex(dimension);
    index.add(flat([1, 2, 3]));
    const first = index.search(vectorOf(2), 1);
    index.removeIds([1]);
    index.add(flat([4]));
    const [before, after] = await Promise.all([first, index.search(vectorOf(2), 3)]);
    expect(before.labels).toEqual([1]);
    // Seed 2 removed: positions compact to [1, 3, 4].
    expect(after.labels).toHaveLength(3);
    expect(index.searchNow(vectorOf(4), 1).labels).toEqual([2]);
  });

  it('given an index, then its serialisation reads back into an index with the same vectors, from bytes and from the file faiss wrote', async () => {
    const index = newFaissIndex(dimension);
    index.add(flat([5, 6, 7, 8]));
    const bytes = index.toBuffer();
    const path = join(dir, 'i.faiss');
    await index.write(path);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    for (const from of [{ bytes }, { path }]) {
      const { index: copy, count } = readFaissIndex(from);
      expect(count).toBe(4);
      expect(copy.searchNow(vectorOf(7), 4)).toEqual(index.searchNow(vectorOf(7), 4));
    }
  });

  it('given an add that faiss refuses, then the index reports it at its next request, and other indexes go on', async () => {
    const bad = newFaissIndex(dimension);
    bad.add(new Float32Array(dimension + 1));
    const good = newFaissIndex(dimension);
    good.add(flat([9]));
    await expect(bad.search(vectorOf(1), 1)).rejects.toThrow();
    expect(() => bad.searchNow(vectorOf(1), 1)).toThrow();
    expect((await good.search(vectorOf(9), 1)).labels).toEqual([0]);
  });

  it('given a large index, when searched, then the event loop keeps turning while faiss works', async () => {
    const index = newFaissIndex(dimension);
    for (let part = 0; part < 4; part += 1) {
      // 50k vectors of a cheap sequence: what they hold does not matter here, only how long a search takes.
      const vectors = new Float32Array(50_000 * dimension);
      for (let i = 0; i < vectors.length; i += 1) vectors[i] = ((i * 7919 + part) % 1000) / 1000;
      index.add(vectors);
    }
    index.searchNow(vectorOf(1), 10);
    // Many searches on the thread, timed from here; the loop's longest pause meanwhile, against the time they take.
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    const started = performance.now();
    let ticks = 0;
    const ticking = setInterval(() => (ticks += 1), 1);
    await Promise.all(Array.from({ length: 40 }, (_, q) => index.search(vectorOf(q), 10)));
    const took = performance.now() - started;
    clearInterval(ticking);
    histogram.disable();
    // On the event loop, forty searches of 200k x 64 are one pause as long as all of them.
    expect(took).toBeGreaterThan(20);
    expect(histogram.max / 1e6).toBeLessThan(took / 2);
    expect(ticks).toBeGreaterThan(5);
  });
});

describe('faiss-node on two threads (the addon as .ci/faiss/build.sh builds it)', () => {
  it('given the faiss thread has read an index, when this thread makes one from bytes, then both threads can go on making indexes from bytes', async () => {
    const { createRequire } = await import('node:module');
    const faiss = createRequire(import.meta.url)('faiss-node') as typeof import('faiss-node');
    const here = new faiss.IndexFlatIP(dimension);
    here.add(Array.from(flat([1, 2])));
    readFaissIndex({ bytes: here.toBuffer() });
    // With one constructor reference per process, whichever thread loaded the addon last owned it: the other aborted here.
    expect(faiss.IndexFlatIP.fromBuffer(here.toBuffer()).ntotal()).toBe(2);
    expect(readFaissIndex({ bytes: here.toBuffer() }).count).toBe(2);
    expect(faiss.IndexFlatIP.fromBuffer(here.toBuffer()).ntotal()).toBe(2);
  });
});
