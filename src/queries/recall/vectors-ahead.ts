import type { RouteSources } from './routes.js';
import type { ScoredId } from './types.js';

type VectorSearch = RouteSources['vectors'];

/**
 * A search asked for before anyone needs it: the first `search(v, k)` of the recall's own vector
 * and depth gets its answer. The exact indexes answer on the faiss thread (issue 17), so a search
 * asked for before this thread runs the routes' keyword SQL is done meanwhile, on the other core.
 */
function searchAhead(index: VectorSearch, vector: Promise<Float32Array>, k: number): VectorSearch {
  const early = vector.then((v) => {
    const hits = index.search(v, k);
    // Not every recall reads it (the graph route's entries, when its keyword side found nothing).
    hits.catch(() => undefined);
    return { v, hits };
  });
  early.catch(() => undefined);
  return {
    search: async (v: Float32Array, n: number): Promise<ScoredId[]> => {
      const asked = await early.catch(() => null);
      return asked && asked.v === v && n === k ? asked.hits : index.search(v, n);
    },
  };
}

/** Both vector searches of a recall (memories, graph entries) asked for at once, `k` deep. */
export function withVectorsAhead<S extends RouteSources>(sources: S, vector: Promise<Float32Array>, k: number): S {
  return { ...sources, vectors: searchAhead(sources.vectors, vector, k), graphVectors: searchAhead(sources.graphVectors, vector, k) };
}
