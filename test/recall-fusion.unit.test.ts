import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agreementBonus, floorNormalize, fuseRoute, fuseRrf, fuseWeighted, minMaxNormalize, rankScores } from '../src/queries/recall/fusion.js';
import { defaultRecallSettings, type ScoredId } from '../src/queries/recall/types.js';
import { finalScore, finalScoreParts, recencyScore, relevanceShare } from '../src/queries/recall/weighting.js';

const ids = (list: readonly ScoredId[]): string[] => list.map((item) => item.id);
// Keyword norms a 1, b 0.5, c 0 (a BM25 list against 0); vector norms c 1, b 0.5, d 0 (cosines against 1). Ranks: b 2/2, c 3/1, a 1/–, d –/3.
const keyword: ScoredId[] = [{ id: 'a', score: 100 }, { id: 'b', score: 50 }, { id: 'c', score: 0 }];
const vector: ScoredId[] = [{ id: 'c', score: 1 }, { id: 'b', score: 0.5 }, { id: 'd', score: 0 }];

describe('minMaxNormalize', () => {
  it('maps the best to 1, the worst to 0 and the rest linearly, keeping the order', () => {
    expect(minMaxNormalize([{ id: 'x', score: 8 }, { id: 'y', score: 5 }, { id: 'z', score: 2 }])).toEqual([
      { id: 'x', score: 1 }, { id: 'y', score: 0.5 }, { id: 'z', score: 0 },
    ]);
  });

  it('gives 1 to a single element and to all-equal scores; nothing for nothing', () => {
    expect(minMaxNormalize([{ id: 'x', score: 0.123 }])).toEqual([{ id: 'x', score: 1 }]);
    expect(minMaxNormalize([{ id: 'x', score: 3 }, { id: 'y', score: 3 }])).toEqual([{ id: 'x', score: 1 }, { id: 'y', score: 1 }]);
    expect(minMaxNormalize([])).toEqual([]);
  });

  it('handles negative scores and non-finite ones', () => {
    expect(minMaxNormalize([{ id: 'x', score: -1 }, { id: 'y', score: -3 }, { id: 'n', score: Number.NaN }])).toEqual([
      { id: 'x', score: 1 }, { id: 'y', score: 0 }, { id: 'n', score: 0 },
    ]);
  });
});

describe('weighted and RRF fusion', () => {
  it('weighted: bm25Weight·norm(kw) + (1−bm25Weight)·norm(vec), a missing side counting 0', () => {
    const fused = fuseWeighted(keyword, vector, 0.6);
    expect(ids(fused)).toEqual(['a', 'b', 'c', 'd']);
    const score = Object.fromEntries(fused.map((f) => [f.id, f.score]));
    expect(score['a']).toBeCloseTo(0.6, 12);
    expect(score['b']).toBeCloseTo(0.5, 12);
    expect(score['c']).toBeCloseTo(0.4, 12);
    expect(score['d']).toBe(0);
    expect(ids(fuseWeighted(keyword, vector, 0.3))).toEqual(['c', 'b', 'a', 'd']);
  });

  it('rrf: Σ 1/(k+rank) ignores scores, so c (ranks 3 and 1) edges out b (2 and 2)', () => {
    const fused = fuseRrf([keyword, vector], 60);
    expect(ids(fused)).toEqual(['c', 'b', 'a', 'd']);
    expect(fused.map((f) => f.score)).toEqual([1 / 63 + 1 / 61, 1 / 62 + 1 / 62, 1 / 61, 1 / 63]);
    expect(fuseRrf([[{ id: 'x', score: 0 }]], 1)).toEqual([{ id: 'x', score: 0.5 }]);
  });

  it('breaks ties by id', () => {
    expect(ids(fuseWeighted([{ id: 'z', score: 1 }], [{ id: 'y', score: 1 }], 0.5))).toEqual(['y', 'z']);
    expect(ids(fuseRrf([[{ id: 'q', score: 9 }], [{ id: 'p', score: 1 }]]))).toEqual(['p', 'q']);
  });
});

describe('agreement bonus', () => {
  it('rewards ids in both lists whose ranks are within the window, and only those', () => {
    expect(agreementBonus(keyword, vector, 0, 0.25)).toEqual(new Map([['b', 0.25]]));
    expect(agreementBonus(keyword, vector, 1, 0.25)).toEqual(new Map([['b', 0.25]]));
    expect(agreementBonus(keyword, vector, 2, 0.25)).toEqual(new Map([['b', 0.25], ['c', 0.25]]));
    expect(agreementBonus(keyword, [], 3, 0.25)).toEqual(new Map());
  });

  it('fuseRoute (weighted) shows every part; the bonus is paid in the weaker list\'s evidence', () => {
    const fused = fuseRoute(keyword, vector, defaultRecallSettings);
    // b: both lists at 0.5, bonus 0.25 × 0.5; c: in both lists but keyword 0, so no bonus (two
    // lists that agree on a memory one of them barely holds agree on nothing).
    expect([...fused.keys()]).toEqual(['b', 'a', 'c', 'd']);
    expect(fused.get('b')).toEqual({ fused: 0.625, parts: { keyword: 0.25, vector: 0.25, agreement: 0.125 } });
    expect(fused.get('c')).toEqual({ fused: 0.5, parts: { keyword: 0, vector: 0.5, agreement: 0 } });
    expect(fused.get('a')).toEqual({ fused: 0.5, parts: { keyword: 0.5, vector: 0, agreement: 0 } });
    expect(fused.get('d')).toEqual({ fused: 0, parts: { keyword: 0, vector: 0, agreement: 0 } });
    // outside the window: no bonus for b either
    const narrow = fuseRoute(keyword, vector, { ...defaultRecallSettings, agreementRankWindow: 0 });
    expect(narrow.get('b')?.parts.agreement).toBe(0.125);
    expect(fuseRoute(keyword, [{ id: 'x', score: 1 }, { id: 'y', score: 1 }, { id: 'b', score: 0.5 }], { ...defaultRecallSettings, agreementRankWindow: 0 }).get('b')?.parts.agreement).toBe(0);
  });

  it('a second keyword hit keeps its evidence, and a weak vector list stays weak (issue 16, cause 1)', () => {
    // Two BM25 hits: min-max made the second 0, as if the keyword route had not found it.
    const two = fuseRoute([{ id: 'p', score: 6 }, { id: 'q', score: 4 }], [], defaultRecallSettings);
    expect(two.get('q')?.parts.keyword).toBeCloseTo(0.5 * (4 / 6), 12);
    expect(minMaxNormalize([{ id: 'p', score: 6 }, { id: 'q', score: 4 }])[1]?.score).toBe(0);
    // Cosines 0.3 and 0.2 over a background of 0.1: far from a match, so far from 1.
    const weak = fuseRoute([], [{ id: 'u', score: 0.3 }, { id: 'v', score: 0.2 }], defaultRecallSettings, { vector: 0.1 });
    expect(weak.get('u')?.parts.vector).toBeCloseTo(0.5 * (0.2 / 0.9), 12);
    expect(weak.get('v')?.parts.vector).toBeCloseTo(0.5 * (0.1 / 0.9), 12);
    // A cut BM25 list: the floor is the first score cut off.
    expect(floorNormalize([{ id: 'p', score: 6 }, { id: 'q', score: 4 }], 2).map((h) => h.score)).toEqual([1, 0.5]);
    expect(floorNormalize([{ id: 'p', score: 1 }], 1).map((h) => h.score)).toEqual([0]);
  });

  it('fuseRoute (rrf) uses one reciprocal-rank part per list', () => {
    const fused = fuseRoute(keyword, vector, { ...defaultRecallSettings, fusionMode: 'rrf', fusionAgreementBonus: 0.1 });
    expect([...fused.keys()]).toEqual(['c', 'b', 'a', 'd']);
    expect(fused.get('c')?.parts).toEqual({ keyword: 1 / 63, vector: 1 / 61, agreement: 0.1 });
    expect(fused.get('a')?.fused).toBe(1 / 61);
  });
});

describe('recency and final weighting', () => {
  it('decays exp(−rate·ageDays)', () => {
    expect(recencyScore('2024-01-01T00:00:00Z', '2024-01-11T00:00:00Z', 0.01)).toBeCloseTo(Math.exp(-0.1), 12);
    expect(recencyScore('2024-01-01T00:00:00Z', '2024-01-11T00:00:00Z', 0.01)).toBeCloseTo(0.904837, 6);
    expect(recencyScore('2024-01-01T00:00:00Z', '2024-04-10T00:00:00Z', 0.01)).toBeCloseTo(0.367879, 6); // 100 days
    expect(recencyScore('2024-01-01T00:00:00Z', '2024-01-01T12:00:00Z', 0.1)).toBeCloseTo(Math.exp(-0.05), 12);
    expect(recencyScore(Date.UTC(2024, 0, 1), new Date(Date.UTC(2024, 0, 3)), 0.5)).toBeCloseTo(Math.exp(-1), 12);
  });

  it('gives 1 to the present and the future, 0 to an unparseable date', () => {
    expect(recencyScore('2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z', 0.01)).toBe(1);
    expect(recencyScore('2025-01-01T00:00:00Z', '2024-01-01T00:00:00Z', 0.01)).toBe(1);
    expect(recencyScore('not a date', '2024-01-01T00:00:00Z', 0.01)).toBe(0);
  });

  it('weights relevance 0.5, importance 0.25, recency 0.25 by default, the last two paid in the relevance share', () => {
    // 0.5 × 0.8 + (0.25 × 0.6 + 0.25 × 0.4) × 0.8
    expect(finalScore({ relevance: 0.8, importance: 0.6, recency: 0.4 }, defaultRecallSettings)).toBeCloseTo(0.6, 12);
    expect(finalScore({ relevance: 1, importance: 1, recency: 1 }, defaultRecallSettings)).toBe(1);
    const parts = finalScoreParts({ relevance: 0.8, importance: 0.6, recency: 0.4 }, defaultRecallSettings);
    expect(parts.relevance).toBeCloseTo(0.4, 12);
    expect(parts.importance).toBeCloseTo(0.12, 12);
    expect(parts.recency).toBeCloseTo(0.08, 12);
    const relevanceOnly = { relevanceWeight: 1, importanceWeight: 0, recencyWeight: 0 };
    expect(finalScore({ relevance: 0.8, importance: 0.6, recency: 0.4 }, relevanceOnly)).toBe(0.8);
  });

  it('the relevance share is the relevance clamped to [0, 1]; NaN pays nothing', () => {
    expect([-0.5, 0, 0.3, 1, 1.25, Number.NaN].map(relevanceShare)).toEqual([0, 0, 0.3, 1, 1, 0]);
    // A relevance above 1 (the agreement bonus) pays importance and recency in full: 0.5 × 1.25 + 0.25 + 0.125.
    expect(finalScore({ relevance: 1.25, importance: 1, recency: 0.5 }, defaultRecallSettings)).toBeCloseTo(1, 12);
    expect(finalScore({ relevance: 0, importance: 1, recency: 1 }, defaultRecallSettings)).toBe(0);
  });

  it('an important, fresh memory of little relevance no longer passes a relevant one; equal relevance still goes by importance and recency', () => {
    const memories = {
      relevant: { relevance: 0.6, importance: 0.2, recency: 0.2 }, // 0.3 + 0.1 × 0.6 = 0.36 (was 0.4)
      listed: { relevance: 0.2, importance: 1, recency: 1 }, // 0.1 + 0.5 × 0.2 = 0.2 (was 0.6)
      relevantImportant: { relevance: 0.6, importance: 0.8, recency: 0.2 }, // 0.3 + 0.25 × 0.6 = 0.45 (was 0.55)
      unrelated: { relevance: 0, importance: 1, recency: 1 }, // 0 (was 0.5)
    };
    const order = Object.entries(memories)
      .map(([id, signals]) => ({ id, score: finalScore(signals, defaultRecallSettings) }))
      .sort((a, b) => b.score - a.score)
      .map((m) => m.id);
    expect(order).toEqual(['relevantImportant', 'relevant', 'listed', 'unrelated']);
  });
});
