import { createRequire } from 'node:module';
import type { Index as FaissIndex } from 'faiss-node';
import type { FlatIndex, VectorHit } from './flat-index.js';

export type { VectorHit };

const require = createRequire(import.meta.url);
const faiss = (): typeof import('faiss-node') => require('faiss-node') as typeof import('faiss-node');

/** When and how searches go through an approximate (HNSW) index instead of the exact one (ADR 8). */
export interface ApproximateSettings {
  /** Exact search below this many vectors. */
  readonly minVectors: number;
  /** HNSW links per node (faiss `HNSW<m>`). */
  readonly m: number;
  /** Candidates kept while searching (faiss `efSearch`): higher is slower and closer to exact. */
  readonly efSearch: number;
  /** Share of dead labels (removed or replaced vectors) at which the index is built again. */
  readonly rebuildAt?: number;
}

/** Vectors handed to faiss at once: faiss-node takes a plain number[], so a million at once would not fit. */
const addChunk = 4_096;

/**
 * faiss-node cannot set `efSearch` (faiss 1.7.3 keeps it at 16, which finds about 6 of the 10
 * nearest hash embeddings): it is written into the serialised index and read back. The layout of
 * IndexHNSWFlat ("IHNf") in 1.7.3: the index header, then the HNSW's vectors (assign_probas,
 * cum_nneighbor_per_level, levels, offsets, neighbors, each a u64 count then its items), then
 * entry_point, max_level, efConstruction, efSearch (i32 each). Checked against faiss's defaults
 * (efConstruction 40, efSearch 16), so a build with another layout is refused, not misread.
 */
function withEfSearch(index: FaissIndex, efSearch: number): FaissIndex {
  const bytes = index.toBuffer();
  if (bytes.subarray(0, 4).toString('latin1') !== 'IHNf') throw new Error('approximate vector index: not an IndexHNSWFlat');
  let at = 4 + 4 + 8 + 8 + 8 + 1 + 4;
  for (const itemBytes of [8, 4, 4, 8, 4]) at += 8 + Number(bytes.readBigUInt64LE(at)) * itemBytes;
  at += 8;
  if (bytes.readInt32LE(at) !== 40 || bytes.readInt32LE(at + 4) !== 16) throw new Error('approximate vector index: unknown HNSW layout (efConstruction/efSearch not where faiss 1.7.3 keeps them)');
  bytes.writeInt32LE(efSearch, at + 4);
  return faiss().Index.fromBuffer(bytes);
}

/**
 * An HNSW index beside the exact one, for searches only. HNSW cannot remove a vector, so a removed
 * or replaced vector's label is dead: searches skip it (asking for more candidates), and once dead
 * labels pass `rebuildAt` of the index it is built again from the exact index. Vectors are unit
 * length, so L2 ranks as inner product does and a distance d is the cosine 1 - d/2.
 */
export function createApproximateIndex(dimension: number, settings: ApproximateSettings) {
  let index: FaissIndex | null = null;
  let labelIds: string[] = [];
  let labelOf = new Map<string, number>();
  let dead = 0;

  const addAll = (entries: readonly { id: string; vector: Float32Array }[]): void => {
    const target = index as FaissIndex;
    for (let start = 0; start < entries.length; start += addChunk) {
      const chunk = entries.slice(start, start + addChunk);
      const flat = new Array<number>(chunk.length * dimension);
      chunk.forEach(({ id, vector }, i) => {
        for (let j = 0; j < dimension; j += 1) flat[i * dimension + j] = vector[j] as number;
        if (labelOf.has(id)) dead += 1;
        labelOf.set(id, labelIds.length);
        labelIds.push(id);
      });
      target.add(flat);
    }
  };

  return {
    settings,
    built: (): boolean => index !== null,
    /** Too many dead labels: searches would ask for too many candidates. */
    stale: (): boolean => index !== null && dead > (settings.rebuildAt ?? 0.2) * Math.max(1, labelIds.length),
    /** Builds the index from every vector (O(n log n), synchronous). */
    build(entries: readonly { id: string; vector: Float32Array }[]): void {
      index = faiss().Index.fromFactory(dimension, `HNSW${settings.m}`, faiss().MetricType.METRIC_L2);
      labelIds = [];
      labelOf = new Map();
      dead = 0;
      addAll(entries);
      index = withEfSearch(index, settings.efSearch);
    },
    /** Follows the exact index: new or replaced vectors. */
    added(entries: readonly { id: string; vector: Float32Array }[]): void {
      if (index) addAll(entries);
    },
    /** Follows the exact index: removed vectors leave dead labels. */
    removed(ids: Iterable<string>): void {
      if (!index) return;
      for (const id of ids) if (labelOf.delete(id)) dead += 1;
    },
    /** The `k` best live hits, or null when the dead labels leave fewer than `k` (the caller searches exactly). */
    search(query: Float32Array, k: number, size: number): VectorHit[] | null {
      if (!index) return null;
      const want = Math.min(k, size);
      const ask = Math.min(labelIds.length, want + Math.ceil((want * dead) / Math.max(1, labelIds.length - dead)) + 8);
      const { labels, distances } = index.search(Array.from(query), ask);
      const hits: VectorHit[] = [];
      labels.forEach((label, i) => {
        const id = labelIds[label];
        if (label >= 0 && id !== undefined && labelOf.get(id) === label && hits.length < want) hits.push({ id, score: 1 - (distances[i] as number) / 2 });
      });
      return hits.length < want ? null : hits;
    },
  };
}

export type ApproximateIndex = ReturnType<typeof createApproximateIndex>;

/** The approximate index that follows each exact one, once built: it lives as long as its exact index. */
const following = new WeakMap<FlatIndex, ApproximateIndex>();

/**
 * How a vector store searches its live index: exactly, or, with `settings` and at least
 * `minVectors` vectors, through an approximate index built from the exact one at its first such
 * search (again for a rebuild's new index, or when too many of its labels are dead), which then
 * follows the exact index's changes. Falls back to the exact search when dead labels leave too few hits.
 */
export async function searchVectors(index: FlatIndex, query: Float32Array, k: number, settings: ApproximateSettings | null | undefined): Promise<VectorHit[]> {
  if (!settings || index.size() < settings.minVectors) return index.search(query, k);
  let approximate = following.get(index);
  if (!approximate?.built() || approximate.stale()) {
    approximate = createApproximateIndex(index.dimension, settings);
    approximate.build(index.entries());
    index.follow(approximate);
    following.set(index, approximate);
  }
  return approximate.search(query, k, index.size()) ?? index.search(query, k);
}
