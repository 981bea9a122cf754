import type { MemoryDocument } from '../documents.js';
import { withConversationContext, type Adjacent, type WithContext } from './context.js';
import { fuseRoute, minMaxNormalize, type FusedScore } from './fusion.js';
import { combineRoutes, routeWeights } from './intent.js';
import { explainPick, type RecallTrace } from './explain.js';
import { candidateSimilarity, mmrPicks, storedTokenSimilarity } from './mmr.js';
import { documentRoute, graphRoute, vectorDepth, withDocumentMemo, type RouteLists, type RouteSources } from './routes.js';
import { withVectorsAhead } from './vectors-ahead.js';
import { favour } from './favour.js';
import { namedMemories } from './participants.js';
import { toEpochMs } from './time.js';
import { memoriesOfPeriods } from './when.js';
import { inScope, scopeFilter, type ScopeFilter } from './scope.js';
import type { Explanation, RecallScope, RecallSettings, ScoredId } from './types.js';
import { finalScoreParts, recencyScore } from './weighting.js';
import { ProjectionFailedError } from '../../projections/failure.js';

export interface RecallRequest {
  readonly query: string;
  readonly scope: RecallScope;
  readonly topK?: number;
  /** The request's time: recency is measured from it; nothing here reads a clock. */
  readonly now: string;
}

/** A document-level result of ranking, before the atom policy: what the recall cache keeps. */
export interface RankedCandidate {
  readonly memoryId: string;
  readonly score: number;
  readonly explain: Explanation;
}

/** Optional second opinion on the fused top candidates (a `/rerank` service); null leaves the order. */
export interface Reranker {
  rerank(query: string, documents: readonly { id: string; text: string }[]): Promise<{ id: string; score: number }[]>;
}

/** The routes' sources and, for conversation context, each memory's neighbours in its session, `reach` turns out (without it, no context). */
export type RankSources = RouteSources & { readonly adjacent?: (memoryIds: readonly string[], reach?: number) => ReadonlyMap<string, Adjacent> };

const empty: RouteLists = { keyword: [], vector: [] };

/**
 * A route that fails or runs past its time counts as empty; the other route keeps its results. A
 * read model stopped at an event (ADR 23) is not a route's bad moment: the recall says so, rather
 * than answering from what is left (with every route down that answer was "nothing recalled").
 */
async function bounded(work: Promise<RouteLists>, ms: number, failures: string[], name: string): Promise<RouteLists> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<RouteLists>((resolve) => {
    timer = setTimeout(() => {
      failures.push(`${name}: timed out after ${ms} ms`);
      resolve(empty);
    }, ms);
  });
  try {
    const failed = (error: unknown): RouteLists => {
      if (error instanceof ProjectionFailedError) throw error;
      failures.push(`${name}: ${String(error)}`);
      return empty;
    };
    return await Promise.race([work.catch(failed), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** `work`, or a rejection once `ms` have passed: a late query vector must not take its route's keyword list down with it. */
function before<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not ready after ${ms} ms`)), ms);
  });
  const result = Promise.race([work, late]).finally(() => clearTimeout(timer));
  result.catch(() => undefined);
  return result;
}

function weighRoute(fused: Map<string, FusedScore>, docs: Map<string, MemoryDocument>, now: string, s: RecallSettings) {
  const scores = new Map<string, number>();
  const parts = new Map<string, { fused: FusedScore; weighted: ReturnType<typeof finalScoreParts> }>();
  for (const [id, f] of fused) {
    const doc = docs.get(id);
    if (!doc) continue;
    const weighted = finalScoreParts(
      { relevance: f.fused, importance: doc.importance, recency: recencyScore(doc.createdAt, now, s.decayRatePerDay) },
      s,
    );
    scores.set(id, weighted.final);
    parts.set(id, { fused: f, weighted });
  }
  return { scores, parts };
}

/** Both routes in parallel, fused, weighed, combined by intent, optionally reranked, diversified. */
export async function rankCandidates(
  live: RankSources,
  request: RecallRequest,
  s: RecallSettings,
  reranker: Reranker | null = null,
): Promise<RankedCandidate[]> {
  const filter = scopeFilter(request.scope);
  if (filter === null || request.query.trim().length === 0) return [];
  const k = Math.max(1, Math.min(request.topK ?? s.topK, s.maxK));
  const limit = Math.max(k * s.candidateMultiplier, reranker ? s.rerankCandidates : 0);
  const failures: string[] = [];
  const notes: string[] = [];
  const reach = live.embedding;
  const skipVectors = reach !== undefined && !reach.covers(request.query);
  // A query the provider cannot embed would get a vector that means nothing: the vector lists stay empty.
  if (skipVectors) notes.push(`vector route skipped: ${reach.provider} embeds ${reach.languages} only, and this query is not`);
  const vector = skipVectors ? Promise.reject(new Error('not embedded')) : live.embedQuery(request.query);
  vector.catch(() => undefined);
  const sources = withVectorsAhead(withDocumentMemo(live), vector, vectorDepth(limit));
  // One turn, for both searches to reach the faiss thread before the routes' keyword SQL holds this one.
  if (!skipVectors) await new Promise((resolve) => setImmediate(resolve));
  // The graph route starts first: it may hand its keyword side to another thread, which then works while this one searches.
  const graphWork = bounded(graphRoute(sources, request.query, before(vector, s.routeTimeoutMs * 0.8), filter, limit, s.graphHops), s.routeTimeoutMs, failures, 'graph');
  const [docRoute, graph] = await Promise.all([
    bounded(documentRoute(sources, request.query, vector, filter, limit), s.routeTimeoutMs, failures, 'document'),
    graphWork,
  ]);
  const fusedDoc = fuseRoute(docRoute.keyword, docRoute.vector, s, docRoute.floors);
  const fusedGraph = fuseRoute(graph.keyword, graph.vector, s, graph.floors);
  const docs = sources.documents.getMany([...new Set([...fusedDoc.keys(), ...fusedGraph.keys()])]);
  const d = weighRoute(fusedDoc, docs, request.now, s);
  const g = weighRoute(fusedGraph, docs, request.now, s);
  const weights = routeWeights(request.query, s);
  // Entry vectors echo the document route's vectors: only what the graph found by its entries and edges earns the both-routes bonus.
  const combined = [...combineRoutes(d.scores, g.scores, weights, s.bothRoutesBonus, new Set(graph.keyword.map((h) => h.id)))];
  const size = Math.max(limit, s.rerankCandidates);
  const withCtx = withContext(sources, combined.slice(0, size).map(([id, c]) => ({ id, score: c.score })), docs, filter, s);
  // After context, so a reply the context brought in is favoured like the turn it answers.
  const byName = favour(withCtx, namedMemories(request.query, participantsOf(docs)), s.participantBonus);
  const post = favour(byName.pool, memoriesOfPeriods(request.query, toEpochMs(request.now), createdAtOf(docs)), s.timeBonus);
  const contextual = post.pool.slice(0, size);
  const context = new Map(contextual.map((c) => [c.id, c.context]));
  let pool = contextual.map((c) => ({ id: c.id, score: c.score, text: docs.get(c.id)?.text ?? '' }));
  let reranked: Map<string, number> | null = null;
  if (reranker) ({ pool, reranked } = await rerankPool(reranker, request.query, pool, s.rerankCandidates));
  // MMR weighs scores against similarities in [0, 1], so it sees the pool's scores on that scale
  // too; a candidate of score 0 (every signal 0) carries no evidence and is not returned.
  const positive = pool.filter((c) => c.score > 0);
  const unit = new Map(minMaxNormalize(positive).map((c) => [c.id, c.score]));
  const stored = sources.keyword.tokensOf?.(positive.map((c) => c.id));
  const similarity = stored ? storedTokenSimilarity(stored) : candidateSimilarity;
  const picks = mmrPicks(positive.map((c) => ({ ...c, score: unit.get(c.id) ?? 0, pool: c.score })), k, s.mmrLambda, similarity);
  const trace: RecallTrace = {
    lists: { document: docRoute, graph },
    document: d.parts,
    graph: g.parts,
    weights,
    combined: new Map(combined),
    context,
    named: byName.extra,
    period: post.extra,
    reranked,
    failures,
    notes,
  };
  // The penalty in the pool's own scale, so final scores fall in pick order (see mmrPenalties).
  const penalty = mmrPenaltyScale(positive.map((c) => c.score), s.mmrLambda);
  return picks
    .map(({ candidate, similarity }) => {
      const mmrPenalty = penalty * similarity;
      return { id: candidate.id, pool: candidate.pool, mmrPenalty, final: candidate.pool - mmrPenalty };
    })
    .filter((p) => p.final > 0)
    .map((p) => ({ memoryId: p.id, score: p.final, explain: explainPick(trace, p.id, p) }));
}

/**
 * MMR picks by λ·unit − (1−λ)·similarity, unit = (score − min) / span. In the pool's own scale that
 * is score − span·(1−λ)/λ·similarity: the penalty a pick pays for its similarity to the earlier
 * picks. Shown as score − penalty, the scores fall in pick order (each pick's MMR value is at most
 * the one before), so the order shown is the order of the scores shown.
 */
function mmrPenaltyScale(scores: readonly number[], lambda: number): number {
  if (scores.length === 0 || !(lambda < 1)) return 0;
  const span = Math.max(...scores) - Math.min(...scores);
  return lambda > 0 ? (span * (1 - lambda)) / lambda : span;
}

const createdAtOf = (docs: ReadonlyMap<string, MemoryDocument>): Map<string, number> => new Map([...docs].map(([id, d]) => [id, toEpochMs(d.createdAt)]));
const participantsOf = (docs: ReadonlyMap<string, MemoryDocument>): Map<string, readonly string[]> => new Map([...docs].map(([id, d]) => [id, d.participants]));

/** Conversation context over the pool; neighbours that join it are loaded into `docs` and must be active and in scope. */
function withContext(sources: RankSources, pool: ScoredId[], docs: Map<string, MemoryDocument>, filter: ScopeFilter, s: RecallSettings): WithContext[] {
  if (!sources.adjacent || (s.contextNextWeight <= 0 && s.contextPreviousWeight <= 0)) return pool.map((c) => ({ ...c, context: 0 }));
  const scored = withConversationContext(pool, sources.adjacent(pool.map((c) => c.id), s.contextReach), s);
  for (const [id, doc] of sources.documents.getMany(scored.filter((c) => !docs.has(c.id)).map((c) => c.id))) docs.set(id, doc);
  return scored.filter((c) => {
    const doc = docs.get(c.id);
    return doc !== undefined && doc.status === 'active' && inScope(doc, filter);
  });
}

async function rerankPool(reranker: Reranker, query: string, pool: { id: string; score: number; text: string }[], n: number) {
  const head = pool.slice(0, n);
  const scores = await reranker.rerank(query, head).catch(() => null);
  if (!scores) return { pool, reranked: null };
  const by = new Map(scores.map((r) => [r.id, r.score]));
  const reranked = head.map((c) => ({ ...c, score: by.get(c.id) ?? c.score })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  return { pool: [...reranked, ...pool.slice(n)], reranked: by };
}
