import { z } from 'zod';
import { idSchema } from '../../../events/metadata.js';
import type { ViewEdge, ViewNode } from '../../../queries/graph-view.js';
import { requireUnscoped } from '../../shared/scope.js';
import type { App, DoorContext } from '../context.js';
import { errorResponses } from '../errors.js';
import { createLouvainPool } from '../louvain-pool.js';

const graphQuery = z
  .object({
    sessionId: idSchema.optional(),
    personaId: idSchema.optional(),
    limit: z.coerce.number().int().min(1).max(20_000).default(2000).describe('The most connected nodes kept'),
  })
  .strict();

const graphSchema = z
  .object({
    nodes: z.array(z.object({ key: z.string(), type: z.string(), value: z.string(), degree: z.number(), community: z.number() })),
    edges: z.array(z.object({ source: z.string(), target: z.string(), weight: z.number(), relations: z.array(z.string()) })),
    communities: z.array(z.object({ id: z.number(), size: z.number(), isolates: z.boolean(), label: z.string() })),
    isolates: z.number().nullable().describe('The community of the nodes without a tie (null: none)'),
    totalNodes: z.number(),
    totalEdges: z.number(),
    modularity: z.number(),
    computeMs: z.number().describe('Milliseconds the server spent on Louvain'),
  })
  .meta({ id: 'GraphView', description: 'Nodes with their Louvain community, edges merged per node pair (self-loops left out)' });

/** One drawn edge per node pair: parallel and reverse ties merged, their weights summed. */
function pairEdges(edges: readonly ViewEdge[]) {
  const pairs = new Map<string, { source: string; target: string; weight: number; relations: string[] }>();
  for (const e of edges) {
    if (e.source === e.target) continue;
    const [source, target] = e.source < e.target ? [e.source, e.target] : [e.target, e.source];
    const key = `${source}\u0000${target}`;
    const pair = pairs.get(key);
    if (!pair) pairs.set(key, { source, target, weight: e.weight, relations: [e.relation] });
    else {
      pair.weight += e.weight;
      if (!pair.relations.includes(e.relation)) pair.relations.push(e.relation);
    }
  }
  const merged = [...pairs.values()];
  for (const p of merged) if (p.relations.length > 1) p.relations.sort();
  return merged;
}

/** Labels each community with its most connected node's value. */
function labels(nodes: readonly ViewNode[], byNode: ReadonlyMap<string, number>): Map<number, string> {
  const best = new Map<number, ViewNode>();
  for (const n of nodes) {
    const c = byNode.get(n.key) ?? -1;
    const prior = best.get(c);
    if (!prior || n.degree > prior.degree) best.set(c, n);
  }
  return new Map([...best].map(([c, n]) => [c, n.value]));
}

/**
 * The graph projection for the dashboard: nodes and edges in a session/persona filter with
 * weighted Louvain communities, computed in a worker thread and never written to the store.
 */
export function graphRoutes(app: App, { engine }: DoorContext): void {
  const pool = createLouvainPool();
  app.addHook('onClose', async () => pool.close());

  app.get('/v1/graph', {
    schema: { operationId: 'graphView', tags: ['graph'], querystring: graphQuery, response: { 200: graphSchema, ...errorResponses } },
  }, async (req) => {
    requireUnscoped(req.principal, 'the graph view');
    await engine.indexes.catchUp();
    const view = engine.indexes.graphView.view(req.query);
    const started = performance.now();
    const grouping = pool.communities(view.nodes.map((n) => n.key), view.edges);
    // The drawn edges are merged here while the thread groups the nodes.
    const edges = pairEdges(view.edges);
    const found = await grouping;
    const computeMs = Math.round(performance.now() - started);
    const label = labels(view.nodes, found.byNode);
    return {
      nodes: view.nodes.map((n) => ({ ...n, community: found.byNode.get(n.key) ?? 0 })),
      edges,
      communities: found.sizes.map((size, id) => ({ id, size, isolates: id === found.isolates, label: label.get(id) ?? '' })),
      isolates: found.isolates,
      totalNodes: view.totalNodes,
      totalEdges: view.totalEdges,
      modularity: found.modularity,
      computeMs,
    };
  });
}
