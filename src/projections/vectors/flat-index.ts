import { createRequire } from 'node:module';
import type { IndexFlatIP as FaissIndex } from 'faiss-node';

const require = createRequire(import.meta.url);
const { IndexFlatIP } = require('faiss-node') as typeof import('faiss-node');

/** faiss search results are capped here; a recall asks for far fewer. */
export const maxCandidates = 8192;

export interface VectorHit {
  readonly id: string;
  readonly score: number;
}

/*
 * IndexFlatIP's serialisation in faiss 1.7.3: fourcc "IxFI", d (i32), ntotal (i64), two i64 fields,
 * is_trained (u8), metric (i32), then the vectors as a float vector (u64 count, the floats).
 */
const flatHeaderBytes = 45;

/**
 * Refuses bytes faiss would misread before faiss reads them: a wrong count could make it allocate
 * without bound (an abort, not an exception), so a damaged snapshot must never reach it.
 */
function checkFlatBytes(buffer: Buffer, dimension: number, count: number): void {
  const floats = count * dimension;
  const problem =
    buffer.length !== flatHeaderBytes + floats * 4 ? `${buffer.length} bytes, expected ${flatHeaderBytes + floats * 4}`
    : buffer.subarray(0, 4).toString('latin1') !== 'IxFI' ? 'not an inner-product flat index'
    : buffer.readInt32LE(4) !== dimension ? `dimension ${buffer.readInt32LE(4)}, expected ${dimension}`
    : buffer.readBigInt64LE(8) !== BigInt(count) || buffer.readBigUInt64LE(37) !== BigInt(floats) ? `holds another count of vectors than its ${count} ids`
    : null;
  if (problem) throw new Error(`vector snapshot index: ${problem}`);
}

/**
 * An exact inner-product FAISS index plus the position -> id map it lacks: faiss-node has no
 * add_with_ids, and IndexFlat's removeIds compacts positions, so the map is compacted the same way.
 */
export function createFlatIndex(dimension: number, restored?: { buffer: Buffer; ids: readonly string[] }) {
  if (restored) checkFlatBytes(restored.buffer, dimension, restored.ids.length);
  const index: FaissIndex = restored ? IndexFlatIP.fromBuffer(restored.buffer) : new IndexFlatIP(dimension);
  let ids: string[] = restored ? [...restored.ids] : [];
  let positions = new Map(ids.map((id, i) => [id, i]));
  if (index.ntotal() !== ids.length) throw new Error(`vector snapshot holds ${index.ntotal()} vectors for ${ids.length} ids`);

  const removeMany = (remove: Iterable<string>): void => {
    const gone = new Set([...remove].filter((id) => positions.has(id)));
    if (gone.size === 0) return;
    index.removeIds([...gone].map((id) => positions.get(id) as number));
    ids = ids.filter((id) => !gone.has(id));
    positions = new Map(ids.map((id, i) => [id, i]));
  };

  return {
    dimension,
    size: () => ids.length,
    has: (id: string) => positions.has(id),
    ids: (): readonly string[] => ids,
    /** Replaces any vector already stored under the same id. */
    upsertMany(entries: readonly { id: string; vector: Float32Array }[]): void {
      if (entries.length === 0) return;
      removeMany(entries.map((e) => e.id));
      const flat: number[] = [];
      for (const { id, vector } of entries) {
        if (vector.length !== dimension) throw new Error(`vector of ${id} has ${vector.length} dimensions, expected ${dimension}`);
        positions.set(id, ids.length);
        ids.push(id);
        for (const x of vector) flat.push(x);
      }
      index.add(flat);
    },
    removeMany,
    search(query: Float32Array, k: number): VectorHit[] {
      const n = Math.min(k, maxCandidates, ids.length);
      if (n <= 0) return [];
      const { labels, distances } = index.search(Array.from(query), n);
      return labels.flatMap((label, i) => (label >= 0 ? [{ id: ids[label] as string, score: distances[i] as number }] : []));
    },
    /** Every stored vector by id, read from one serialisation (IndexFlat's ends with the raw vectors). */
    entries(): { id: string; vector: Float32Array }[] {
      const buffer = index.toBuffer();
      const bytes = dimension * 4;
      const base = buffer.length - ids.length * bytes;
      return ids.map((id, i) => {
        const start = buffer.byteOffset + base + i * bytes;
        return { id, vector: new Float32Array(buffer.buffer.slice(start, start + bytes)) };
      });
    },
    toBuffer: () => index.toBuffer(),
  };
}

export type FlatIndex = ReturnType<typeof createFlatIndex>;
