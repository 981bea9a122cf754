import { z } from 'zod';
import { lazy } from '../events/lazy.js';
import { parseOrThrow } from '../events/errors.js';
import { idSchema } from '../events/metadata.js';
import { applyAtomPolicy } from '../queries/recall/atom-policy.js';
import { createRecallCache } from '../queries/recall/cache.js';
import { formatInjection, type Injection } from '../queries/recall/format.js';
import { chainsToAdjacent } from '../queries/recall/context.js';
import { rankCandidates, type RankedCandidate, type RankSources, type Reranker } from '../queries/recall/rank.js';
import type { RouteSources } from '../queries/recall/routes.js';
import { defaultRecallSettings, type RecalledMemory, type RecallSettings } from '../queries/recall/types.js';
import type { AccessRecorder } from './access-batcher.js';
import type { Environment } from './clock.js';
import { coverageCheck, truncateForEmbedding, type EmbeddingProvider } from '../providers/embeddings/index.js';
import type { RecallWorker } from './recall-worker.js';
import type { Indexes } from './indexes.js';

export const recallInputSchema = lazy(() =>
  z
    .object({
      query: z.string().refine((q) => q.trim().length > 0, 'must not be empty').pipe(z.string().max(8000)),
      scope: z
        .object({
          mode: z.enum(['legacy', 'session', 'user', 'global']),
          sessionId: idSchema.nullable().optional(),
          personaId: idSchema.nullable().optional(),
          userId: idSchema.nullable().optional(),
        })
        .strict()
        // A session or user scope without its id would recall nothing: refuse it, naming the id.
        .superRefine((scope, ctx) => {
          const needs = scope.mode === 'session' ? 'sessionId' : scope.mode === 'user' ? 'userId' : null;
          if (needs && !scope[needs]) ctx.addIssue({ code: 'custom', path: [needs], message: `is required by the ${scope.mode} scope` });
        })
        .default({ mode: 'legacy' }),
      topK: z.number().int().min(1).max(defaultRecallSettings.maxK).optional(),
      explain: z.boolean().default(false),
    })
    .strict(),
);

export interface RecallAnswer {
  readonly memories: RecalledMemory[];
  readonly injection: Injection;
  readonly cacheHit: boolean;
}

/** The read models a recall runs on: the live ones, or a past view's. */
export type RecallIndexes = Pick<Indexes, 'keyword' | 'graph' | 'documents' | 'atoms' | 'sources'> & {
  readonly vectors: Pick<Indexes['vectors'], 'search'>;
  readonly graphVectors: Pick<Indexes['graphVectors'], 'search'>;
};

interface RecallDeps {
  readonly indexes: RecallIndexes;
  readonly provider: EmbeddingProvider;
  readonly env: Environment;
  readonly access: AccessRecorder;
  readonly settings?: RecallSettings;
  readonly reranker?: Reranker | null;
  /** Runs the routes' keyword sides on a second thread (ADR 21). */
  readonly worker?: RecallWorker | null;
}

/** The read models the recall routes search, over the live generations. */
export function routeSources(indexes: RecallIndexes, provider: EmbeddingProvider): RouteSources {
  const hits = (found: readonly { id: string; score: number }[]) => found.map((h) => ({ id: h.id, score: h.score }));
  const covers = coverageCheck(provider.coverage);
  const reach = covers && provider.coverage ? { provider: provider.fingerprint.provider, languages: provider.coverage.languages, covers } : null;
  return {
    ...(reach ? { embedding: reach } : {}),
    keyword: indexes.keyword,
    vectors: { search: async (q, k) => hits(await indexes.vectors.search(q, k)) },
    graphVectors: { search: async (q, k) => hits(await indexes.graphVectors.search(q, k)) },
    graph: indexes.graph,
    documents: indexes.documents,
    embedQuery: async (query) => {
      const [vector] = await provider.embed([truncateForEmbedding(query, provider.maxInputChars)], 'query');
      if (!vector) throw new Error('the embedding provider returned no vector');
      return vector;
    },
  };
}

/** Recall through the cache, then the atom policy on every result (cache hit or not), then the injection. */
export function createRecall(deps: RecallDeps) {
  const settings = deps.settings ?? defaultRecallSettings;
  const cache = createRecallCache<RankedCandidate[]>();
  const { indexes } = deps;
  /*
   * Conversation context joins turns: memories of exactly one source message. A turn means
   * something beside its neighbours (the answer is often the next turn), but a memory made of many
   * messages (a session summary) carries its own context, and its neighbours are other sessions
   * (LoCoMo, hash, `pipeline` ingest: recall@10 0.689 -> 0.700); and a note with no source (`lmem
   * add`, a fact a host wrote) has no conversation around it: notes written in one session lent
   * each other score for nothing (issue 16: +0.35 to a note with no keyword score).
   */
  const adjacent = (ids: readonly string[], reach = 1) => {
    const counts = indexes.sources.countsOf(ids);
    const window = indexes.documents.sessionWindow(ids.filter((id) => counts.get(id) === 1), reach);
    const around = [...window.values()].flatMap((w) => [...w.before, ...w.after]);
    for (const [id, n] of indexes.sources.countsOf(around)) counts.set(id, n);
    return chainsToAdjacent(window, (id) => counts.get(id) === 1);
  };
  const sources: RankSources = { ...routeSources(indexes, deps.provider), adjacent, ...(deps.worker ? { elsewhere: deps.worker.routes } : {}) };

  const recall = async (input: unknown): Promise<RecallAnswer> => {
    const request = parseOrThrow(recallInputSchema(), input);
    const now = deps.env.now();
    const key = JSON.stringify([request.query, request.scope, request.topK ?? settings.topK]);
    const ranking = { query: request.query, scope: request.scope, now: now.toISOString(), ...(request.topK ? { topK: request.topK } : {}) };
    const overall = 2 * settings.routeTimeoutMs + 1000;
    const { value, hit } = await cache.getOrCompute(key, now.getTime(), () =>
      withTimeout(rankCandidates(sources, ranking, settings, deps.reranker ?? null), overall),
    );
    const docs = indexes.documents.getMany(value.map((c) => c.memoryId));
    const results: RecalledMemory[] = value.flatMap((c) => {
      const doc = docs.get(c.memoryId);
      if (!doc || doc.status !== 'active') return [];
      const base = { memoryId: c.memoryId, text: doc.text, score: c.score, importance: doc.importance, createdAt: doc.createdAt, sessionId: doc.sessionId, facts: [] };
      return [request.explain ? { ...base, explain: c.explain } : base];
    });
    const ids = results.map((r) => r.memoryId);
    const atoms = indexes.atoms.ofMemories(ids);
    const sourceCounts = indexes.sources.countsOf(ids);
    const memories = applyAtomPolicy(results, (id) => atoms.get(id) ?? [], now.toISOString(), (id) => (sourceCounts.get(id) ?? 0) > 0);
    deps.access.record(memories.map((m) => m.memoryId), now.toISOString());
    return { memories, injection: formatInjection(memories, settings), cacheHit: hit };
  };
  return { recall, invalidate: () => cache.invalidate(), cacheStats: () => cache.stats() };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`recall timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
