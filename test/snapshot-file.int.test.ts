import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emptyGeneration } from '../src/projections/vectors/apply.js';
import { toSnapshot } from '../src/projections/vectors/generation-snapshot.js';
import { createFlatIndex } from '../src/projections/vectors/flat-index.js';
import { indexFileOf, readSnapshot, writeSnapshot, type SnapshotHeader } from '../src/projections/vectors/snapshot.js';
import { tailInSlices, writeSnapshotAsync } from '../src/projections/vectors/snapshot-async.js';
import { tailOf } from '../src/projections/vectors/snapshot-write.js';
import { writeTestMemory } from './support/memory-events.js';
import { openTestStore } from './support/store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lmem-snapfile-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An index of `count` vectors of dimension 8, and the header that names their ids. */
function indexOf(count: number) {
  const index = createFlatIndex(8);
  index.upsertMany(Array.from({ length: count }, (_, i) => ({ id: `m-${i}`, vector: Float32Array.from({ length: 8 }, (_, j) => Math.sin(i * 8 + j)) })));
  const header: SnapshotHeader = { generation: 3, checkpoint: '42', fingerprint: 'fp', dimension: 8, ids: index.ids(), pending: [['m-x', 'key']] };
  return { index, header };
}

describe('a vector snapshot written from the file faiss wrote (issue 17)', () => {
  it('given an index, when faiss writes it to a file and the snapshot is made from that file, then the snapshot holds the same bytes as one made from toBuffer', async () => {
    // Over a megabyte of vectors: the copy goes in several slices.
    const { index, header } = indexOf(40_000);
    writeSnapshot(join(dir, 'from-memory.snap'), { header, index: index.toBuffer() });
    const path = join(dir, 'from-file.snap');
    await index.writeTo(indexFileOf(path));
    await writeSnapshotAsync(path, { header, indexFile: indexFileOf(path) });
    expect(readFileSync(path).equals(readFileSync(join(dir, 'from-memory.snap')))).toBe(true);
    expect(existsSync(indexFileOf(path))).toBe(false);
    expect(readSnapshot(path, 3)?.header.ids).toHaveLength(40_000);
  });

  it('given a folder that does not exist, when the index is written there, then it throws (faiss itself would abort the process)', () => {
    const { index } = indexOf(3);
    expect(() => index.writeTo(join(dir, 'missing', 'x.faiss.tmp'))).toThrow(/ENOENT/);
  });

  it('given an empty index, then its snapshot from the file reads back empty', async () => {
    const { index, header } = indexOf(0);
    const path = join(dir, 'empty.snap');
    await index.writeTo(indexFileOf(path));
    await writeSnapshotAsync(path, { header: { ...header, ids: [] }, indexFile: indexFileOf(path) });
    expect(readSnapshot(path, 3)?.header.ids).toEqual([]);
  });
});

describe('the stored sizes of a page of the SQLite log', () => {
  it('given events, when their sizes are asked with the bounds of a read, then there is one size per event the read returns, each its stored bytes', async () => {
    const store = openTestStore();
    try {
      for (let n = 0; n < 12; n += 1) await writeTestMemory(store.log, n, `memory ${'x'.repeat(n * 100)}`);
      const range = { from: 3n, to: 10n, limit: 5 };
      const sizes = await store.log.storedSizes(range);
      const read = await store.log.readAll(range);
      expect(sizes).toHaveLength(read.length);
      const stored = store.db
        .prepare<[number, number], number>('SELECT octet_length(data) + octet_length(metadata) FROM events WHERE global_position BETWEEN ? AND ? ORDER BY global_position')
        .pluck()
        .all(3, 7);
      expect(sizes).toEqual(stored);
      // Larger texts, larger sizes: what the replay's parts are sized by.
      expect(sizes.at(-1)).toBeGreaterThan(sizes[0] as number);
    } finally {
      store.close();
    }
  });

  it('given a snapshot taken, when the index takes more vectors before the file is written, then the file holds the index and the ids of the moment it was taken', async () => {
    const source = { fingerprint: 'fp', dimension: 8, keyOf: (t: string) => t, lookup: () => undefined };
    const gen = emptyGeneration(3, source);
    const vector = (i: number) => Float32Array.from({ length: 8 }, (_, j) => Math.cos(i * 8 + j));
    gen.index.upsertMany([0, 1, 2].map((i) => ({ id: `m-${i}`, vector: vector(i) })));
    const path = join(dir, 'taken.snap');
    const snapshot = await toSnapshot(gen, source, indexFileOf(path));
    // The next page, applied while the snapshot is still being written (the store's lock is free by then).
    gen.index.upsertMany([3, 4].map((i) => ({ id: `m-${i}`, vector: vector(i) })));
    await writeSnapshotAsync(path, snapshot);
    const read = readSnapshot(path, 3);
    expect(read?.header.ids).toEqual(['m-0', 'm-1', 'm-2']);
    // The vectors of the moment too: the faiss write was asked for before the next page's adds.
    const restored = createFlatIndex(8, { count: 3, ids: () => read?.header.ids ?? [], bytes: () => read?.index as Buffer });
    restored.load();
    expect(restored.searchNow(vector(4), 10).map((h) => h.id).sort()).toEqual(['m-0', 'm-1', 'm-2']);
  });

  it('given lists longer than a slice, when the tail is made in slices, then it is byte for byte the tail made at once', async () => {
    const ids = Array.from({ length: 45_001 }, (_, i) => `m-${i}#${i % 3}`);
    const header: SnapshotHeader = {
      generation: 7, checkpoint: '9', fingerprint: 'fp "quoted" 记忆', dimension: 8, ids,
      pending: [['p-1', 'k"1'], ['p-2', '键']], owners: ids.map((id) => [id, id.split('#')[0] as string] as const),
    };
    const digest = Buffer.alloc(32, 7);
    expect(Buffer.concat(await tailInSlices(header, 1234, digest)).equals(Buffer.concat(tailOf(header, 1234, digest)))).toBe(true);
    const { owners: _none, ...withoutOwners } = header;
    expect(Buffer.concat(await tailInSlices(withoutOwners, 0, digest)).equals(Buffer.concat(tailOf(withoutOwners, 0, digest)))).toBe(true);
  });

  it('given 120k items owned by another id, when a snapshot is taken, then the event loop turns while their list is made, and the list is whole', async () => {
    const source = { fingerprint: 'fp', dimension: 8, keyOf: (t: string) => t, lookup: () => undefined };
    const gen = emptyGeneration(4, source);
    for (let i = 0; i < 120_000; i += 1) gen.ownerOf.set(`entry-${i}`, `memory-${i >> 2}`);
    gen.ownerOf.set('memory-self', 'memory-self');
    let turns = 0;
    let on = true;
    const count = (): void => {
      turns += 1;
      if (on) setImmediate(count);
    };
    setImmediate(count);
    const snapshot = await toSnapshot(gen, source);
    on = false;
    // 400k graph entries at 100k memories took 77-95 ms in one step; a turn every 50k entries.
    expect(turns).toBeGreaterThanOrEqual(2);
    expect(snapshot.header.owners).toHaveLength(120_000);
    expect(snapshot.header.owners?.[5]).toEqual(['entry-5', 'memory-1']);
  });
});
