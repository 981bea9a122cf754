import { createRequire } from 'node:module';
import { UndirectedGraph } from 'graphology';
import type louvainModule from 'graphology-communities-louvain';

// A CommonJS package whose types declare an ES default export: required, so types and runtime agree.
const louvain = createRequire(import.meta.url)('graphology-communities-louvain') as typeof louvainModule.default;

/** One edge of the graph projection as Louvain sees it: direction and relation do not matter. */
export interface WeightedTie {
  readonly source: string;
  readonly target: string;
  readonly weight: number;
}

export interface CommunityOptions {
  /** Seeds the order Louvain visits nodes in, so the same graph always gets the same grouping. */
  readonly seed?: number;
  readonly resolution?: number;
}

export interface Communities {
  /** Each node's community: 0 is the largest, ties broken by the smallest node key. */
  readonly byNode: ReadonlyMap<string, number>;
  /** Members per community, by id. */
  readonly sizes: readonly number[];
  /** The one community every node without a tie shares; null when every node has a tie. */
  readonly isolates: number | null;
  readonly modularity: number;
}

/** A small seeded generator (mulberry32): Louvain's random walk must not depend on Math.random. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Weighted Louvain communities with the original's rules: parallel and reverse ties between two
 * nodes count once with their combined weight, self-loops play no part in the grouping, and
 * nodes left without a tie all share one separate community. Nothing here touches a store.
 */
export function louvainCommunities(nodes: readonly string[], ties: readonly WeightedTie[], options: CommunityOptions = {}): Communities {
  const known = new Set(nodes);
  // Louvain visits nodes and edges in insertion order: both go in sorted, so the input order does
  // not matter. A node's rank in key order stands for it, so a pair is one number.
  const sorted = [...known].sort();
  const rank = new Map(sorted.map((key, i) => [key, i]));
  const n = sorted.length;
  // Parallel and reverse ties summed per pair: one undirected edge each.
  const pairs = new Map<number, number>();
  for (const tie of ties) {
    const s = rank.get(tie.source);
    const t = rank.get(tie.target);
    if (s === undefined || t === undefined || s === t || !(tie.weight > 0)) continue;
    const pair = s < t ? s * n + t : t * n + s;
    pairs.set(pair, (pairs.get(pair) ?? 0) + tie.weight);
  }
  const order = [...pairs.keys()].sort((x, y) => x - y);
  const tied = new Uint8Array(n);
  for (const pair of order) tied[Math.floor(pair / n)] = tied[pair % n] = 1;
  const ordered = new UndirectedGraph<Record<string, never>, { weight: number }>();
  sorted.forEach((key, i) => tied[i] && ordered.addNode(key));
  // Keyed by insertion index: graphology's own key generator costs more than the grouping at this size.
  order.forEach((pair, i) => ordered.addUndirectedEdgeWithKey(i, sorted[Math.floor(pair / n)] as string, sorted[pair % n] as string, { weight: pairs.get(pair) ?? 0 }));

  const found = ordered.order === 0
    ? { communities: {} as Record<string, number>, modularity: 0 }
    : louvain.detailed(ordered, { getEdgeWeight: 'weight', rng: seeded(options.seed ?? 1), resolution: options.resolution ?? 1 });
  const members = new Map<number, string[]>();
  for (const key of ordered.nodes()) {
    const c = found.communities[key] ?? 0;
    const group = members.get(c);
    if (group) group.push(key);
    else members.set(c, [key]);
  }
  // Members are sorted (insertion order), so a group's first key is its smallest.
  const groups = [...members.values()].sort((x, y) => y.length - x.length || ((x[0] ?? '') < (y[0] ?? '') ? -1 : 1));
  const byNode = new Map<string, number>();
  groups.forEach((group, id) => group.forEach((key) => byNode.set(key, id)));
  const lonely = [...known].filter((key) => !byNode.has(key));
  const isolates = lonely.length > 0 ? groups.length : null;
  for (const key of lonely) byNode.set(key, groups.length);
  return {
    byNode,
    sizes: [...groups.map((g) => g.length), ...(lonely.length > 0 ? [lonely.length] : [])],
    isolates,
    modularity: found.modularity,
  };
}
