import type { FusedScore } from './fusion.js';
import type { CombinedScore, RouteWeights } from './intent.js';
import type { RouteLists } from './routes.js';
import type { Explanation } from './types.js';
import type { FinalScoreParts } from './weighting.js';

/*
 * The explanation of one recalled memory: every score on its way, in the order the pipeline
 * computes them, so `lmem search --explain` can show each step and the sum comes out to the final
 * score shown. Pure.
 */

/** One route's figures for one memory: its fusion and its weighting. */
export interface RouteFigures {
  readonly fused: FusedScore;
  readonly weighted: FinalScoreParts;
}

/** What a recall knows about all its candidates when it explains one. */
export interface RecallTrace {
  readonly lists: { readonly document: RouteLists; readonly graph: RouteLists };
  readonly document: ReadonlyMap<string, RouteFigures>;
  readonly graph: ReadonlyMap<string, RouteFigures>;
  readonly weights: RouteWeights;
  readonly combined: ReadonlyMap<string, CombinedScore>;
  readonly context: ReadonlyMap<string, number>;
  /** What a memory gained because the query names one of its participants. */
  readonly named: ReadonlyMap<string, number>;
  /** What a memory gained because it was written in (or just after) a period the query names. */
  readonly period: ReadonlyMap<string, number>;
  readonly reranked: ReadonlyMap<string, number> | null;
  readonly failures: readonly string[];
  readonly notes: readonly string[];
}

/** One pick's last two steps: the score it entered MMR with and the penalty MMR took off. */
export interface PickFigures {
  readonly pool: number;
  readonly mmrPenalty: number;
  readonly final: number;
}

const rawScores = (lists: RouteLists): { keyword: Map<string, number>; vector: Map<string, number> } => ({
  keyword: new Map(lists.keyword.map((h) => [h.id, h.score])),
  vector: new Map(lists.vector.map((h) => [h.id, h.score])),
});

// Computed once per trace: a recall explains up to ten memories from the same lists.
const raws = new WeakMap<RecallTrace, Record<'document' | 'graph', ReturnType<typeof rawScores>>>();
const rawOf = (trace: RecallTrace) => {
  let found = raws.get(trace);
  if (!found) raws.set(trace, (found = { document: rawScores(trace.lists.document), graph: rawScores(trace.lists.graph) }));
  return found;
};

function routeEntries(route: 'document' | 'graph', trace: RecallTrace, id: string): Record<string, number> {
  const raw = rawOf(trace)[route];
  const figures = (route === 'document' ? trace.document : trace.graph).get(id);
  const out: Record<string, number> = {};
  const keyword = raw.keyword.get(id);
  const vector = raw.vector.get(id);
  if (keyword !== undefined) out[`${route}.keyword.raw`] = keyword;
  if (vector !== undefined) out[`${route}.vector.raw`] = vector;
  out[`${route}.keyword`] = figures?.fused.parts.keyword ?? 0;
  out[`${route}.vector`] = figures?.fused.parts.vector ?? 0;
  out[`${route}.agreement`] = figures?.fused.parts.agreement ?? 0;
  return out;
}

function weightEntries(route: 'document' | 'graph', figures: RouteFigures | undefined): Record<string, number> {
  if (!figures) return {};
  const { relevance, importance, recency, final } = figures.weighted;
  return { [`${route}.relevance`]: relevance, [`${route}.importance`]: importance, [`${route}.recency`]: recency, [`${route}.score`]: final };
}

/** The explanation of memory `id`, picked with `pick`. */
export function explainPick(trace: RecallTrace, id: string, pick: PickFigures): Explanation {
  const d = trace.document.get(id);
  const g = trace.graph.get(id);
  const combined = trace.combined.get(id);
  const rerank = trace.reranked?.get(id);
  return {
    routes: { ...routeEntries('document', trace, id), ...routeEntries('graph', trace, id) },
    fused: { document: d?.fused.fused ?? 0, graph: g?.fused.fused ?? 0 },
    weights: { document: trace.weights.document, graph: trace.weights.graph, ...weightEntries('document', d), ...weightEntries('graph', g) },
    bonuses: {
      bothRoutes: combined?.parts.bothRoutes ?? 0,
      agreement: d?.fused.parts.agreement ?? 0,
      context: trace.context.get(id) ?? 0,
      ...(trace.named.has(id) ? { named: trace.named.get(id) ?? 0 } : {}),
      ...(trace.period.has(id) ? { period: trace.period.get(id) ?? 0 } : {}),
      ...(rerank === undefined ? {} : { rerank }),
      mmrPenalty: pick.mmrPenalty,
      ...(trace.failures.length ? { degraded: trace.failures.length } : {}),
    },
    combined: combined?.score ?? 0,
    pool: pick.pool,
    final: pick.final,
    ...(trace.notes.length > 0 ? { notes: [...trace.notes] } : {}),
    ...(trace.failures.length > 0 ? { failures: [...trace.failures] } : {}),
  };
}
