import { describe, expect, it } from 'vitest';
import { tokenize } from '../src/projections/text/tokenizer.js';
import { candidateSimilarity, cosine, mmrSelect, storedTokenSimilarity, tokenSimilarity, type MmrCandidate } from '../src/queries/recall/mmr.js';

const ids = (list: readonly MmrCandidate[]): string[] => list.map((c) => c.id);
const v = (...xs: number[]): Float32Array => Float32Array.from(xs);

describe('similarities', () => {
  it('cosine', () => {
    expect(cosine(v(1, 0), v(0, 1))).toBe(0);
    expect(cosine(v(1, 2), v(2, 4))).toBeCloseTo(1, 6);
    expect(cosine(v(1, 0), v(-1, 0))).toBe(-1);
    expect(cosine(v(0, 0), v(1, 1))).toBe(0);
    expect(cosine(v(1, 0), v(1, 0, 0))).toBe(0);
  });

  it('tokenSimilarity is Jaccard over tokenize() tokens', () => {
    // love drink green tea morn | love drink green tea everi morn → 5 / 6
    expect(tokenSimilarity('I love drinking green tea in the morning', 'I love drinking green tea every morning')).toBeCloseTo(5 / 6, 12);
    expect(tokenSimilarity('I love drinking green tea', 'Bob works at Google')).toBe(0);
    expect(tokenSimilarity('Tea!', 'tea')).toBe(1);
    expect(tokenSimilarity('', '')).toBe(0);
  });

  it('detects Chinese near-duplicates without whitespace', () => {
    const near = tokenSimilarity('我明天要去北京出差', '我明天打算去北京出差');
    expect(near).toBeCloseTo(7 / 13, 12);
    expect(tokenSimilarity('我明天要去北京出差', '我喜欢吃四川火锅')).toBe(0);
    expect(tokenSimilarity('明天去北京出差', '我明天要去北京出差')).toBeGreaterThan(0.5);
  });

  it('prefers vectors when both candidates have one, else tokens, else 0', () => {
    const a = { id: 'a', score: 1, text: 'green tea', vector: v(1, 0) };
    const b = { id: 'b', score: 1, text: 'green tea', vector: v(0, 1) };
    expect(candidateSimilarity(a, b)).toBe(0);
    expect(candidateSimilarity({ id: 'a', score: 1, text: 'green tea', vector: v(1, 0) }, { id: 'b', score: 1, text: 'green tea' })).toBe(1);
    expect(candidateSimilarity({ id: 'a', score: 1 }, { id: 'b', score: 1, text: 'x' })).toBe(0);
  });
});

describe('similarity by stored tokens', () => {
  const texts = ['我们明天去南京市长江大桥散步', '长江大桥很长', 'Ann remembered the red door', 'the red door of Ann', ''];
  const candidates: MmrCandidate[] = texts.map((text, i) => ({ id: `m${i}`, score: 1, text }));

  it('gives what tokenizing the texts gives, for every pair', () => {
    const stored = new Map(candidates.map((c) => [c.id, tokenize(c.text ?? '')]));
    const similarity = storedTokenSimilarity(stored);
    for (const a of candidates) for (const b of candidates) expect(similarity(a, b)).toBe(candidateSimilarity(a, b));
  });

  it('compares by the stored tokens, not the text, and tokenizes only candidates without any', () => {
    const [a, b, c] = candidates as [MmrCandidate, MmrCandidate, MmrCandidate];
    const similarity = storedTokenSimilarity(new Map([[a.id, ['x', 'y']], [b.id, ['y', 'z']]]));
    expect(similarity(a, b)).toBeCloseTo(1 / 3);
    expect(similarity(c, c)).toBe(1);
    expect(similarity({ ...a, vector: new Float32Array([1, 0]) }, { ...b, vector: new Float32Array([1, 0]) })).toBeCloseTo(1);
  });
});

describe('mmrSelect', () => {
  const english = [
    { id: 'a', score: 1, text: 'I love drinking green tea in the morning' },
    { id: 'b', score: 0.95, text: 'I love drinking green tea every morning' },
    { id: 'c', score: 0.8, text: 'Bob works at Google in California' },
  ];

  it('pushes a near-duplicate below a diverse memory at λ = 0.7', () => {
    // b: 0.7·0.95 − 0.3·5/6 = 0.415 < c: 0.7·0.8 − 0 = 0.56
    expect(ids(mmrSelect(english, 3, 0.7))).toEqual(['a', 'c', 'b']);
    expect(ids(mmrSelect(english, 3))).toEqual(['a', 'c', 'b']);
  });

  it('keeps the plain score order at λ = 1', () => {
    expect(ids(mmrSelect(english, 3, 1))).toEqual(['a', 'b', 'c']);
  });

  it('does the same for Chinese texts', () => {
    const chinese = [
      { id: 'a', score: 1, text: '我明天要去北京出差' },
      { id: 'b', score: 0.95, text: '我明天打算去北京出差' },
      { id: 'c', score: 0.8, text: '我喜欢吃四川火锅' },
    ];
    expect(ids(mmrSelect(chinese, 3, 0.7))).toEqual(['a', 'c', 'b']);
    expect(ids(mmrSelect(chinese, 3, 1))).toEqual(['a', 'b', 'c']);
  });

  it('uses vectors: a near-parallel vector loses to an orthogonal one', () => {
    const vecs = [
      { id: 'a', score: 1, vector: v(1, 0) },
      { id: 'b', score: 0.9, vector: v(0.99, 0.1) },
      { id: 'c', score: 0.7, vector: v(0, 1) },
    ];
    expect(ids(mmrSelect(vecs, 2, 0.7))).toEqual(['a', 'c']);
    expect(ids(mmrSelect(vecs, 2, 1))).toEqual(['a', 'b']);
  });

  it('first pick is the best score even at λ = 0; caps at k; breaks ties by id', () => {
    expect(ids(mmrSelect(english, 1, 0))).toEqual(['a']);
    expect(mmrSelect(english, 0)).toEqual([]);
    expect(ids(mmrSelect(english, 10))).toHaveLength(3);
    const tied = [{ id: 'z', score: 1 }, { id: 'x', score: 1 }, { id: 'y', score: 1 }];
    expect(ids(mmrSelect(tied, 3))).toEqual(['x', 'y', 'z']);
  });

  it('accepts a custom similarity and computes each pair at most once', () => {
    const seen = new Set<string>();
    let calls = 0;
    const sim = (p: MmrCandidate, q: MmrCandidate): number => {
      calls += 1;
      seen.add([p.id, q.id].sort().join());
      return 0;
    };
    expect(ids(mmrSelect(english, 3, 0.7, sim))).toEqual(['a', 'b', 'c']);
    expect(calls).toBe(seen.size);
  });
});
