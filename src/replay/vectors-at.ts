import type { EventLog } from '../events/log/event-log.js';
import { applyVectorPage, emptyGeneration, type VectorGeneration, type VectorSource } from '../projections/vectors/apply.js';
import { vectorDigest } from '../projections/vectors/generation-snapshot.js';
import { memoryVectorFeed, type VectorFeed } from '../projections/vectors/feed.js';
import type { VectorHit } from '../projections/vectors/flat-index.js';

export interface VectorsAt {
  search(query: Float32Array, k: number): Promise<VectorHit[]>;
  ids(): readonly string[];
  pending(): ReadonlyMap<string, string>;
  digest(): string;
}

/**
 * The vector index as it was at `position`, built in memory by replaying the log over the
 * embedding cache; a stored text is never sent to a provider. A memory whose embedding had failed
 * by then is pending, as it was, even if the cache holds its vector today.
 */
export async function vectorsAt(log: EventLog, source: VectorSource, position: bigint, pageSize = 1000, feed: VectorFeed = memoryVectorFeed): Promise<VectorsAt> {
  const gen: VectorGeneration = emptyGeneration(1, source);
  // The cache key of each memory's current text, so a failed memory stays repairable.
  const keys = new Map<string, string>();
  while (gen.checkpoint < position) {
    const page = await log.readAll({ from: gen.checkpoint + 1n, to: position, limit: pageSize });
    if (page.length === 0) break;
    for (const event of page) {
      applyVectorPage(gen, [event], source, feed);
      // Failed embeddings are replayed for the memory index; graph entries of a failed memory are not told apart yet.
      if (feed !== memoryVectorFeed) continue;
      if (event.type === 'MemoryWritten') keys.set(event.data.memoryId, source.keyOf(event.data.text));
      else if (event.type === 'MemoryUpdated' && event.data.changes.text !== undefined) {
        keys.set(event.data.memoryId, source.keyOf(event.data.changes.text));
      } else if (event.type === 'MemoryEmbeddingFailed' && gen.index.has(event.data.memoryId)) {
        gen.index.removeMany([event.data.memoryId]);
        gen.pending.set(event.data.memoryId, keys.get(event.data.memoryId) ?? '');
      }
    }
  }
  return {
    search: (query, k) => gen.index.search(query, k),
    ids: () => gen.index.ids(),
    pending: () => gen.pending,
    digest: () => vectorDigest(gen),
  };
}
