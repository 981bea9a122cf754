import { accessSync, constants, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { newFaissIndex, readFaissIndex, type FaissIndex } from './faiss-host.js';
import type { IndexFile } from './snapshot.js';

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
function checkFlatBytes(head: Buffer, length: number, dimension: number, count: number): void {
  const floats = count * dimension;
  const problem =
    length !== flatHeaderBytes + floats * 4 || head.length < flatHeaderBytes ? `${length} bytes, expected ${flatHeaderBytes + floats * 4}`
    : head.subarray(0, 4).toString('latin1') !== 'IxFI' ? 'not an inner-product flat index'
    : head.readInt32LE(4) !== dimension ? `dimension ${head.readInt32LE(4)}, expected ${dimension}`
    : head.readBigInt64LE(8) !== BigInt(count) || head.readBigUInt64LE(37) !== BigInt(floats) ? `holds another count of vectors than its ${count} ids`
    : null;
  if (problem) throw new Error(`vector snapshot index: ${problem}`);
}

const hitsOf = ({ labels, distances }: { labels: number[]; distances: number[] }, ids: readonly string[]): VectorHit[] =>
  labels.flatMap((label, i) => (label >= 0 ? [{ id: ids[label] as string, score: distances[i] as number }] : []));

/** What another index needs to follow this one's changes. */
export interface IndexFollower {
  added(entries: readonly { id: string; vector: Float32Array }[]): void;
  removed(ids: Iterable<string>): void;
}

/** A snapshot's index: its vector count now, its ids and FAISS bytes when first needed. */
export interface RestoredFrom {
  readonly count: number;
  readonly ids: () => readonly string[];
  readonly bytes: () => Buffer;
  /** The bytes checked, then read by faiss from the file itself (one copy); absent when it cannot. */
  readonly viaFile?: <T>(use: (file: IndexFile) => T) => T;
}

/**
 * An exact inner-product FAISS index plus the position -> id map it lacks: faiss-node has no
 * add_with_ids, and IndexFlat's removeIds compacts positions, so the map is compacted the same way.
 * A restored index knows its size at once; its ids and bytes are read (and checked) at their first
 * use or by `load()`, and reach faiss only when it is searched or changed (ADR 26).
 */
export function createFlatIndex(dimension: number, restored?: RestoredFrom) {
  // A restored index's ids are read at their first use; until then its size is the snapshot's count.
  let idList: string[] | null = restored ? null : [];
  const currentIds = (): string[] => (idList ??= [...(restored as RestoredFrom).ids()]);
  // Built at the first lookup: a store opened for its counts never needs it.
  let positionMap: Map<string, number> | null = null;
  const positions = (): Map<string, number> => (positionMap ??= new Map(currentIds().map((id, i) => [id, i])));
  let restoredBytes: Buffer | null = null;
  const bytes = (): Buffer => {
    if (restoredBytes) return restoredBytes;
    const from = restored as RestoredFrom;
    const read = from.bytes();
    checkFlatBytes(read, read.length, dimension, from.count);
    return (restoredBytes = read);
  };
  const readFaiss = (from: RestoredFrom): { index: FaissIndex; count: number } =>
    from.viaFile && !restoredBytes
      ? from.viaFile((file) => {
          checkFlatBytes(file.head, file.length, dimension, from.count);
          return readFaissIndex({ path: file.path });
        })
      : readFaissIndex({ bytes: bytes() });
  let built: FaissIndex | null = restored ? null : newFaissIndex(dimension);
  const index = (): FaissIndex => {
    if (built) return built;
    const from = restored as RestoredFrom;
    const { index: made, count } = readFaiss(from);
    if (count !== from.count) throw new Error(`vector snapshot holds ${count} vectors for ${from.count} ids`);
    // faiss holds its own copy now: from here the index serialises itself.
    restoredBytes = null;
    return (built = made);
  };

  // An index that follows this one's changes (the approximate index, ADR 8).
  let follower: IndexFollower | null = null;

  const removeMany = (remove: Iterable<string>): void => {
    const gone = new Set([...remove].filter((id) => positions().has(id)));
    if (gone.size === 0) return;
    follower?.removed(gone);
    index().removeIds([...gone].map((id) => positions().get(id) as number));
    idList = currentIds().filter((id) => !gone.has(id));
    positionMap = null;
  };

  // The vectors end an IndexFlat serialisation (after a 45-byte header, so not aligned for a view),
  // one per id: those of positions [from, to), copied.
  const vectorsOf = (buffer: Buffer, count: number) => {
    const bytes = dimension * 4;
    const base = buffer.byteOffset + buffer.length - count * bytes;
    return (from: number, to: number): Float32Array => new Float32Array(buffer.buffer.slice(base + from * bytes, base + to * bytes));
  };

  // Untouched since restored: the bytes it was restored from are its serialisation.
  const untouched = (): Buffer | null => (built || !restored ? null : bytes());
  const toBuffer = (): Buffer => untouched() ?? index().toBuffer();

  return {
    dimension,
    /** Reads and checks the restored ids and bytes into faiss now (a no-op once read, or for a new index); throws what reading them throws. */
    load: (): void => void (built || !restored || (currentIds(), index())),
    size: () => (idList ? idList.length : (restored as RestoredFrom).count),
    has: (id: string) => positions().has(id),
    ids: (): readonly string[] => currentIds(),
    /** Replaces any vector already stored under the same id. */
    upsertMany(entries: readonly { id: string; vector: Float32Array }[]): void {
      if (entries.length === 0) return;
      // Built before the id list grows: the restored bytes hold the vectors of the ids as restored.
      const target = index();
      removeMany(entries.map((e) => e.id));
      // Its own buffer: handed over to the faiss thread.
      const flat = new Float32Array(entries.length * dimension);
      let at = 0;
      for (const { id, vector } of entries) {
        if (vector.length !== dimension) throw new Error(`vector of ${id} has ${vector.length} dimensions, expected ${dimension}`);
        const list = currentIds();
        positions().set(id, list.length);
        list.push(id);
        for (let i = 0; i < dimension; i += 1) flat[at++] = vector[i] as number;
      }
      target.add(flat);
      follower?.added(entries);
    },
    removeMany,
    /** From now on, `f` hears of every vector added or removed here. */
    follow(f: IndexFollower): void {
      follower = f;
    },
    /** The `k` best, searched on the faiss thread: the event loop goes on meanwhile. */
    async search(query: Float32Array, k: number): Promise<VectorHit[]> {
      const ids = currentIds();
      const n = Math.min(k, maxCandidates, ids.length);
      if (n <= 0) return [];
      // The id list as of the request: an add after it appends to this list, a removal makes a new one.
      return hitsOf(await index().search(query, n), ids);
    },
    /** The same search, with the event loop waiting for it. */
    searchNow(query: Float32Array, k: number): VectorHit[] {
      const ids = currentIds();
      const n = Math.min(k, maxCandidates, ids.length);
      return n <= 0 ? [] : hitsOf(index().searchNow(query, n), ids);
    },
    /** Every stored vector by id, read from one serialisation (IndexFlat's ends with the raw vectors). */
    entries(): { id: string; vector: Float32Array }[] {
      const buffer = toBuffer();
      const ids = currentIds();
      const vectors = vectorsOf(buffer, ids.length);
      return ids.map((id, i) => ({ id, vector: vectors(i, i + 1) }));
    },
    /**
     * The ids, and their vectors end to end by range of positions, as of the call, serialised on the
     * faiss thread without the event loop waiting for it: what an approximate index is built from.
     */
    async vectorsLater(): Promise<{ ids: readonly string[]; vectors: (from: number, to: number) => Float32Array }> {
      const ids = currentIds().slice();
      const buffer = untouched() ?? (await index().toBufferLater());
      return { ids, vectors: vectorsOf(buffer, ids.length) };
    },
    toBuffer,
    untouched,
    /**
     * faiss writes its serialisation to `path` itself, on its thread: about 0.3-2 ms of CPU a MB where
     * toBuffer took 6.5, and 150-700 ms of the event loop at 100k memories before the thread (issue 17).
     * faiss aborts the process when the file cannot be written, so the folder and its free space are checked first.
     */
    writeTo(path: string): Promise<void> {
      const target = index();
      const needed = flatHeaderBytes + currentIds().length * dimension * 4;
      accessSync(dirname(path), constants.W_OK);
      const { bavail, bsize } = statfsSync(dirname(path));
      if (bavail * bsize < 2 * needed + 16 * 1024 * 1024) throw new Error(`no room for a vector snapshot of ${needed} bytes in ${dirname(path)}`);
      return target.write(path);
    },
  };
}

export type FlatIndex = ReturnType<typeof createFlatIndex>;
