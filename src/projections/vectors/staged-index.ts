import type { FlatIndex } from './flat-index.js';

/** The part of a FlatIndex that applying events uses. */
export type IndexWrites = Pick<FlatIndex, 'removeMany' | 'upsertMany'>;

/**
 * The writes of one page to a FlatIndex, held and made at the end in one removal and one add: a
 * faiss call per item compacted the id map and copied the vectors once per item. The index ends
 * exactly as item-by-item writes leave it, positions included: the ids it held keep their order,
 * less those removed, then every id added, in the order of its last add.
 */
export function stageIndexWrites(index: FlatIndex) {
  const removed = new Set<string>();
  const added = new Map<string, Float32Array>();
  const remove = (id: string): void => {
    if (!added.delete(id) && index.has(id)) removed.add(id);
  };
  const writes: IndexWrites = {
    removeMany(ids) {
      for (const id of ids) remove(id);
    },
    upsertMany(entries) {
      for (const { id, vector } of entries) {
        if (vector.length !== index.dimension) throw new Error(`vector of ${id} has ${vector.length} dimensions, expected ${index.dimension}`);
        remove(id);
        added.set(id, vector);
      }
    },
  };
  return {
    writes,
    /** Makes the held writes; the index then reads as if each had been made at once. */
    commit(): void {
      index.removeMany(removed);
      index.upsertMany([...added].map(([id, vector]) => ({ id, vector })));
      removed.clear();
      added.clear();
    },
  };
}
