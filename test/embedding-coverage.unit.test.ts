import { describe, expect, it } from 'vitest';
import { scriptCounts, scriptShare } from '../src/projections/text/scripts.js';
import { coverageCheck, createEmbeddingProvider, embeddingConfidence, uncoveredScripts } from '../src/providers/embeddings/index.js';
import { createUseLiteEmbeddingProvider } from '../src/providers/embeddings/use-lite.js';
import { rankCandidates, type RankSources } from '../src/queries/recall/rank.js';
import type { MemoryDocument } from '../src/queries/documents.js';
import { defaultRecallSettings } from '../src/queries/recall/types.js';

const now = '2026-01-01T00:00:00.000Z';
const doc = (memoryId: string, text: string): MemoryDocument => ({
  memoryId, text, sessionId: null, personaId: null, userId: null, importance: 0.5, status: 'active', createdAt: now, updatedAt: now,
  topics: [], keyFacts: [], participants: [], sentiment: null, accessCount: 0, lastAccessedAt: null, mergedFrom: [], statusReason: null,
});

describe('what a provider can embed (issue 16, cause 3)', () => {
  it('counts letters by script; a Han character weighs as a word', () => {
    expect(Object.fromEntries(scriptCounts('Tea 茶!'))).toEqual({ Latin: 3, Han: 1 });
    const latin = new Set(['Latin'] as const);
    expect(scriptShare('I like green tea', latin)).toBe(1);
    expect(scriptShare('我喜欢绿茶', latin)).toBe(0);
    expect(scriptShare('2026-01-01 12:00', latin)).toBe(1);
    expect(scriptShare('Alice 喜欢 tea', latin)).toBeCloseTo(8 / 18, 12);
  });

  it('use-lite declares English; hash any language; config can narrow a provider', () => {
    const useLite = createUseLiteEmbeddingProvider();
    expect(useLite.coverage?.languages).toBe('English');
    const covers = coverageCheck(useLite.coverage);
    expect(covers?.('What pet does the user have?')).toBe(true);
    expect(covers?.('我的宠物今年几岁了？')).toBe(false);
    expect(uncoveredScripts(useLite.coverage)).toContain('Han');
    const hash = createEmbeddingProvider({ provider: 'hash' });
    expect(coverageCheck(hash.coverage)).toBeNull();
    expect(embeddingConfidence(hash.coverage, '我的宠物')).toBe(1);
    const narrowed = createEmbeddingProvider({ provider: 'hash', scripts: ['Latin'] });
    expect(coverageCheck(narrowed.coverage)?.('我的宠物')).toBe(false);
    expect(() => createEmbeddingProvider({ provider: 'hash', scripts: ['Klingon'] } as never)).toThrow(/embedding\.scripts/);
  });

  it('a query the provider cannot embed skips the vector route, and explain says so', async () => {
    const docs = new Map([['zh', doc('zh', '我养了一只金毛')], ['en', doc('en', 'The user has a dog')]]);
    let embedded = 0;
    const sources: RankSources = {
      embedding: { provider: 'use-lite', languages: 'English', covers: (text) => !/\p{Script=Han}/u.test(text) },
      keyword: { search: (q) => (q.includes('金毛') ? [{ memoryId: 'zh', score: 3 }] : []) },
      // Every text gets the same vector, as use-lite gives Chinese: a search would list both.
      vectors: { search: () => Promise.resolve([{ id: 'en', score: 0.9 }, { id: 'zh', score: 0.9 }]) },
      graphVectors: { search: () => Promise.resolve([]) },
      graph: { searchAny: () => [], nodesOf: () => new Map(), bestNeighbours: () => new Map(), memoriesOfEach: () => new Map(), entriesOfMemories: () => new Map() },
      documents: { getMany: (ids) => new Map(ids.flatMap((id) => (docs.has(id) ? [[id, docs.get(id) as MemoryDocument]] : []))) },
      embedQuery: () => ((embedded += 1), Promise.resolve(new Float32Array([1]))),
    };
    const zh = await rankCandidates(sources, { query: '金毛', scope: { mode: 'global' }, now }, defaultRecallSettings);
    expect(zh.map((r) => r.memoryId)).toEqual(['zh']);
    expect(embedded).toBe(0);
    expect(zh[0]?.explain.notes?.[0]).toMatch(/vector route skipped: use-lite embeds English only/);
    // An English query is embedded, but the Chinese memory's vector means nothing: only 'en' is a vector hit.
    const en = await rankCandidates(sources, { query: 'dog', scope: { mode: 'global' }, now }, defaultRecallSettings);
    expect(embedded).toBe(1);
    expect(en.map((r) => r.memoryId)).toEqual(['en']);
  });
});
