import { approximateSettled, newHnswIndex, type FaissIndex } from './faiss-host.js';
import type { FlatIndex, IndexFollower, VectorHit } from './flat-index.js';

export type { VectorHit };
export { approximateSettled };

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

/** Vectors posted to the thread at once (their copy is the loop's work). */
const addChunk = 2_048;

type Entry = { readonly id: string; readonly vector: Float32Array };
type Change = { readonly added: readonly Entry[] } | { readonly removed: readonly string[] };

/**
 * An HNSW index beside the exact one, for searches only, on the approximate indexes' thread
 * (`faiss-host.ts`). HNSW cannot remove a vector, so a removed or replaced vector's label is dead:
 * searches skip it (asking for more candidates), and once dead labels pass `rebuildAt` of the
 * index it is built again from the exact index. Vectors are unit length, so L2 ranks as inner
 * product does and a distance d is the cosine 1 - d/2. Until its build is done it answers nothing
 * (the caller searches exactly); changes the exact index makes meanwhile wait for the build's
 * vectors to be posted, so a vector replaced during the build is never taken for the live one.
 */
export function createApproximateIndex(dimension: number, settings: ApproximateSettings) {
  let hnsw: FaissIndex | null = null;
  const labelIds: string[] = [];
  const labelOf = new Map<string, number>();
  let dead = 0;
  let ready = false;
  let failed = false;
  let stopped = false;
  let building: ReturnType<typeof newHnswIndex> | null = null;
  // Changes the exact index made while the build's vectors were being posted.
  let held: Change[] | null = null;

  // `flat` holds the vectors of `ids` end to end, and is handed over to the thread.
  const post = (ids: readonly string[], flat: Float32Array): void => {
    for (const id of ids) {
      if (labelOf.has(id)) dead += 1;
      labelOf.set(id, labelIds.length);
      labelIds.push(id);
    }
    (hnsw as FaissIndex).add(flat);
  };
  const postEntries = (entries: readonly Entry[]): void => {
    const flat = new Float32Array(entries.length * dimension);
    // A subarray of each vector would cost more than copying it (V8, views of large buffers).
    entries.forEach(({ vector }, i) => flat.set(vector, i * dimension));
    post(entries.map((e) => e.id), flat);
  };
  const remove = (ids: Iterable<string>): void => {
    for (const id of ids) if (labelOf.delete(id)) dead += 1;
  };

  const follower: IndexFollower = {
    added(entries) {
      if (held) held.push({ added: entries.map(({ id, vector }) => ({ id, vector: vector.slice() })) });
      else if (hnsw && !failed) postEntries(entries);
    },
    removed(ids) {
      if (held) held.push({ removed: [...ids] });
      else remove(ids);
    },
  };

  return {
    follower,
    /** Posts nothing more: a build under way ends at its next chunk, and the exact index answers (its store closes). */
    stop: (): void => void (stopped = true),
    /** Sets `efSearch` again once built (the bench's sweep of it on one build). */
    setEfSearch: async (efSearch: number): Promise<void> => {
      if (!ready || !building) throw new Error('the approximate index is not built');
      await building.ready(efSearch);
    },
    /** The build is done: searches go through it. */
    ready: (): boolean => ready,
    /** Too many dead labels: searches would ask for too many candidates. */
    stale: (): boolean => ready && dead > (settings.rebuildAt ?? 0.2) * Math.max(1, labelIds.length),
    /**
     * Builds it from every vector `source` gives (as of this call), on the approximate indexes'
     * thread; the vectors are posted a chunk per turn of the event loop. Resolves once it can
     * search; a failure leaves it answering nothing, for good (the exact index serves).
     */
    async build(source: () => Promise<{ readonly ids: readonly string[]; readonly vectors: (from: number, to: number) => Float32Array }>): Promise<void> {
      // Held from the call on: `source` reads the vectors as of the call.
      held = [];
      const made = (building = newHnswIndex(dimension, settings.m));
      hnsw = made.index;
      try {
        let from: Awaited<ReturnType<typeof source>> | null = await source();
        // At most two chunks wait on the thread: posted faster than HNSW adds them, every vector's
        // copy queued there at once (at 1M vectors, gigabytes beside the index being built).
        let previous: Promise<void> | null = null;
        for (let start = 0; start < from.ids.length; start += addChunk) {
          if (stopped) throw new Error('the approximate index build was stopped: its store closed');
          const end = Math.min(from.ids.length, start + addChunk);
          post(from.ids.slice(start, end), from.vectors(start, end));
          const added = made.caughtUp();
          // Awaited below; a stop may leave the last one unawaited, and a thread that failed then must not crash the process.
          added.catch(() => undefined);
          if (previous) await previous;
          previous = added;
        }
        await previous;
        // The serialisation the vectors were copied from: not held for the rest of the build.
        from = null;
        for (const change of held) if ('added' in change) postEntries(change.added);
        else remove(change.removed);
        held = null;
        await made.ready(settings.efSearch);
        ready = true;
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        held = null;
      }
    },
    /** The `k` best live hits, or null when not built or the dead labels leave fewer than `k` (the caller searches exactly). */
    async search(query: Float32Array, k: number, size: number): Promise<VectorHit[] | null> {
      if (!ready || !hnsw) return null;
      const want = Math.min(k, size);
      const ask = Math.min(labelIds.length, want + Math.ceil((want * dead) / Math.max(1, labelIds.length - dead)) + 8);
      // A label added after the request is past what it can return.
      const { labels, distances } = await hnsw.search(query, ask);
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

/** The approximate index that follows each exact one: it lives as long as its exact index. */
const following = new WeakMap<FlatIndex, { approximate: ApproximateIndex; built: Promise<void> }>();

/** `index`'s approximate index, its build started (in the background) when there is none or it is stale. */
function approximateOf(index: FlatIndex, settings: ApproximateSettings) {
  const known = following.get(index);
  if (known && !known.approximate.stale()) return known;
  const approximate = createApproximateIndex(index.dimension, settings);
  index.follow(approximate.follower);
  const built = approximate.build(() => index.vectorsLater());
  // A failed build is not retried: the exact index answers (searchVectors).
  built.catch(() => undefined);
  const made = { approximate, built };
  following.set(index, made);
  return made;
}

/**
 * Exact searches of an index before its approximate index is built: a process that searches a few
 * times (a CLI command) never pays for a build (minutes at 1M vectors, and its thread holds the
 * process until it is done: faiss aborts the process if it exits mid-build).
 */
export const buildAfterSearches = 20;
const searchesOf = new WeakMap<FlatIndex, number>();

/** Whether `index` is searched through an approximate index at its size. */
const due = (index: FlatIndex, settings: ApproximateSettings | null | undefined): settings is ApproximateSettings =>
  settings != null && index.size() >= settings.minVectors;

/**
 * How a vector store searches its live index: exactly, or, with `settings` and at least
 * `minVectors` vectors, through an approximate index built from the exact one in the background
 * after `buildAfterSearches` such searches (again for a rebuild's new index, or when too many of
 * its labels are dead), which then follows the exact index's changes. Exact while it builds, and
 * when dead labels leave too few hits.
 */
export async function searchVectors(index: FlatIndex, query: Float32Array, k: number, settings: ApproximateSettings | null | undefined): Promise<VectorHit[]> {
  if (!due(index, settings)) return index.search(query, k);
  if (!following.has(index)) {
    const searches = (searchesOf.get(index) ?? 0) + 1;
    searchesOf.set(index, searches);
    if (searches <= buildAfterSearches) return index.search(query, k);
  }
  return (await approximateOf(index, settings).approximate.search(query, k, index.size())) ?? index.search(query, k);
}

/** Sets `efSearch` of `index`'s built approximate index (the bench compares values on one build). */
export async function approximateEfSearch(index: FlatIndex, efSearch: number): Promise<void> {
  const known = following.get(index);
  if (!known) throw new Error('no approximate index');
  await known.approximate.setEfSearch(efSearch);
}

/** Stops `index`'s approximate index (a build under way ends at its next chunk): its store is closing. */
export function stopApproximate(index: FlatIndex): void {
  following.get(index)?.approximate.stop();
}

/**
 * For a closing store: a build (an hour at 1M vectors) does not hold the close; what was posted
 * is awaited (faiss aborts a process that exits mid-add), the rest is never posted.
 */
export async function closeApproximate(index: FlatIndex): Promise<void> {
  stopApproximate(index);
  await approximateSettled();
}

/** Resolves once `index`'s approximate index is built (starting it if needed); rejects when the build failed (tests, the bench). */
export function approximateBuilt(index: FlatIndex, settings: ApproximateSettings): Promise<void> {
  return approximateOf(index, settings).built;
}

/** Whether `index` has an approximate index, built or being built (tests). */
export const approximateStarted = (index: FlatIndex): boolean => following.has(index);

/** Builds `index`'s approximate index now when `settings` call for one at its size (resolving once built); false when its searches are exact. */
export async function approximateIfDue(index: FlatIndex, settings: ApproximateSettings | null | undefined): Promise<boolean> {
  if (!due(index, settings)) return false;
  await approximateOf(index, settings).built;
  return true;
}
