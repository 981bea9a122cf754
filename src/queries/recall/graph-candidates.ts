import type { RouteSources } from './routes.js';
import type { ScopeFilter } from './scope.js';
import type { ScoredId } from './types.js';

/** What the graph route's keyword side needs of a recall. */
export interface GraphCandidatesRequest {
  readonly query: string;
  readonly filter: ScopeFilter;
  readonly limit: number;
  readonly hops: 1 | 2;
}

/**
 * The graph route's keyword side, best first; scope and status are checked after. When `cut`, the
 * list stops where the memories of neighbours not yet read could still enter it: every score in it
 * is final, and a caller whose scope keeps fewer than it needs asks again without the cut.
 */
export interface GraphCandidates {
  readonly ranked: ScoredId[];
  readonly cut: boolean;
}

const byScoreThenId = (a: ScoredId, b: ScoredId): number => b.score - a.score || (a.id < b.id ? -1 : 1);

/**
 * The graph route's keyword side: entries matching the query, then the memories of their nodes'
 * neighbours (1 or 2 hops, a second hop weighted down). Reads only `graph`, so a worker thread with
 * its own connection can run it. Without a session, the neighbours' memories are read best
 * neighbour first, in growing batches, until `limit` scores are final: a node has up to `limit`
 * memories and a recall up to 200 neighbours, of which the first few fill the list (at 10k
 * memories, 345 rows read a recall for the 15 kept).
 */
export function graphCandidates(graph: RouteSources['graph'], request: GraphCandidatesRequest & { readonly whole?: boolean }): GraphCandidates {
  const { query, filter, limit, hops } = request;
  const graphScope = { ...(filter.sessionId ? { sessionId: filter.sessionId } : {}), ...(filter.personaId ? { personaId: filter.personaId } : {}) };
  const entries = graph.searchAny(query, { ...graphScope, limit });
  const scores = new Map<string, number>(entries.map((e, rank) => [e.memoryId, 1 / (1 + rank)]));
  const direct = new Set(scores.keys());
  const nodes = [...new Set([...graph.nodesOf(entries.slice(0, 5).map((e) => e.entryId)).values()].flat())];
  // Each neighbour node's share, its best path's: a memory takes the best share among its nodes.
  const share = new Map<string, number>();
  for (const [node, score] of graph.bestNeighbours(nodes.slice(0, 20), hops, 10)) share.set(node, score / (score + 1) / 2);
  const order = [...share].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  // A session's entries are read whole in one statement whatever the batch: no gain in batches there.
  const batched = !request.whole && graphScope.sessionId === undefined;
  let read = 0;
  for (let size = batched ? 2 : order.length; read < order.length; size *= 2) {
    let end = Math.min(order.length, read + size);
    // Ties go in the same batch, so that a score equal to the next batch's share is never left out of order.
    while (end < order.length && order[end]?.[1] === order[end - 1]?.[1]) end += 1;
    const batch = order.slice(read, end);
    const memories = graph.memoriesOfEach(batch.map(([key]) => key), graphScope, limit);
    for (const [key, value] of batch) {
      for (const id of memories.get(key) ?? []) if (!direct.has(id)) scores.set(id, Math.max(scores.get(id) ?? 0, value));
    }
    read = end;
    const next = order[read]?.[1];
    if (next === undefined) break;
    // Nothing unread can reach a score above `next`: those scores and their order are final.
    const final = [...scores].filter(([, score]) => score > next);
    if (final.length >= limit) return { ranked: final.map(([id, score]) => ({ id, score })).sort(byScoreThenId), cut: true };
  }
  return { ranked: [...scores].map(([id, score]) => ({ id, score })).sort(byScoreThenId), cut: false };
}
