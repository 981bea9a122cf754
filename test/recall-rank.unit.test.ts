import { describe, expect, it } from 'vitest';
import type { MemoryDocument } from '../src/queries/documents.js';
import { rankCandidates, type RankSources } from '../src/queries/recall/rank.js';
import { defaultRecallSettings } from '../src/queries/recall/types.js';

const now = '2026-01-01T00:00:00.000Z';
const doc = (memoryId: string, text: string): MemoryDocument => ({
  memoryId, text, sessionId: null, personaId: null, userId: null, importance: 0.5, status: 'active', createdAt: now, updatedAt: now,
  topics: [], keyFacts: [], participants: [], sentiment: null, accessCount: 0, lastAccessedAt: null, mergedFrom: [], statusReason: null,
});

/** Keyword hits only: no vectors (the embedding fails), an empty graph. */
function sources(hits: [string, string, number][]): RankSources {
  const docs = new Map(hits.map(([id, text]) => [id, doc(id, text)]));
  return {
    keyword: { search: () => hits.map(([memoryId, , score]) => ({ memoryId, score })) },
    vectors: { search: () => Promise.resolve([]) },
    graphVectors: { search: () => Promise.resolve([]) },
    graph: { searchAny: () => [], nodesOf: () => new Map(), bestNeighbours: () => new Map(), memoriesOfEach: () => new Map(), entriesOfMemories: () => new Map() },
    documents: { getMany: (ids) => new Map(ids.flatMap((id) => (docs.has(id) ? [[id, docs.get(id) as MemoryDocument]] : []))) },
    embedQuery: () => Promise.reject(new Error('no vectors here')),
  };
}

describe('rankCandidates', () => {
  it('MMR compares similarity with the pool scores scaled to [0, 1], so a near-duplicate that is much better still ranks second', async () => {
    // a and b share 3 of 5 tokens (Jaccard 0.6); c shares none. Relevance r = 0.5 × bm25 / 10; pool scores
    // 0.65 × (0.5 × r + (0.25 × 0.5 + 0.25 × 1) × r): a 0.284, b 0.253, c 0.142, d 0.028; scaled to the pool:
    // 1, 0.88, 0.45, 0. λ 0.7: b gets 0.7 × 0.88 − 0.3 × 0.6 = 0.44 against c's 0.31 (on the raw scores c
    // would win). Shown: each pick's pool score less its penalty, span × (1 − λ) / λ × similarity
    // (0.256 × 0.43 × 0.6 = 0.066 for b), so the scores shown fall in the order shown.
    const ranked = await rankCandidates(
      sources([['a', 'alpha beta gamma delta', 10], ['b', 'alpha beta gamma epsilon', 9], ['c', 'zeta eta theta', 5], ['d', 'iota kappa', 1]]),
      { query: 'alpha', scope: { mode: 'global' }, topK: 3, now },
      defaultRecallSettings,
    );
    expect(ranked.map((r) => r.memoryId)).toEqual(['a', 'b', 'c']);
    expect(ranked.map((r) => Math.round(r.score * 1000) / 1000)).toEqual([0.284, 0.19, 0.142]);
    expect(ranked.map((r) => r.explain.final)).toEqual(ranked.map((r) => r.score));
    expect(ranked[1]?.explain.bonuses['mmrPenalty']).toBeCloseTo(0.253 - 0.19, 2);
  });
});
