import type { CommunityOptions, WeightedTie } from '../../queries/communities.js';

/**
 * A request to the Louvain thread; the answer carries the same id. Ties go as node indexes in
 * typed arrays (moved, not copied): at 25,000 ties cloning objects cost more than the grouping.
 */
export interface LouvainRequest {
  readonly id: number;
  readonly nodes: readonly string[];
  readonly sources: Uint32Array<ArrayBuffer>;
  readonly targets: Uint32Array<ArrayBuffer>;
  readonly weights: Float64Array<ArrayBuffer>;
  readonly options?: CommunityOptions;
}

/** Each node's community by node index, and the rest of `Communities`. */
export interface LouvainAnswer {
  readonly community: Int32Array<ArrayBuffer>;
  readonly sizes: readonly number[];
  readonly isolates: number | null;
  readonly modularity: number;
}

/** Ties as node indexes; ties to a node outside `nodes` are left out. */
export function packTies(nodes: readonly string[], ties: readonly WeightedTie[]): Pick<LouvainRequest, 'sources' | 'targets' | 'weights'> {
  const index = new Map(nodes.map((key, i) => [key, i]));
  const known = ties.filter((t) => index.has(t.source) && index.has(t.target));
  return {
    sources: Uint32Array.from(known, (t) => index.get(t.source) ?? 0),
    targets: Uint32Array.from(known, (t) => index.get(t.target) ?? 0),
    weights: Float64Array.from(known, (t) => t.weight),
  };
}
