import { describe, expect, it } from 'vitest';
import { combineRoutes, detectIntents, routeWeights } from '../src/queries/recall/intent.js';
import { defaultRecallSettings } from '../src/queries/recall/types.js';

const weights = (query: string, settings = defaultRecallSettings) => routeWeights(query, settings);

function expectWeights(query: string, intents: string[], document: number, graph: number): void {
  const w = weights(query);
  expect(w.intents).toEqual(intents);
  expect(w.document).toBeCloseTo(document, 6);
  expect(w.graph).toBeCloseTo(graph, 6);
}

describe('routeWeights: intents', () => {
  it('keeps the base 0.65 / 0.35 without an intent', () => {
    expectWeights('我喜欢吃什么', [], 0.65, 0.35);
    expectWeights('favourite green tea brand', [], 0.65, 0.35);
  });

  it('relationship adds 0.2 to graph (0.65 / 0.55 normalised)', () => {
    for (const q of ['小明和我的关系', '我的同事叫什么名字', '小明是谁', '我妈妈住在哪里', 'Who is my sister?', 'Is Bob a colleague of Alice', 'my BOSS']) {
      expectWeights(q, ['relationship'], 0.65 / 1.2, 0.55 / 1.2);
    }
  });

  it('temporal adds 0.1 to graph (0.65 / 0.45 normalised)', () => {
    for (const q of ['我上周去了哪里', '昨天吃了火锅', '会议在几点', 'What did I do last week?', 'When is the dentist', 'two days ago']) {
      expectWeights(q, ['temporal'], 0.65 / 1.1, 0.45 / 1.1);
    }
  });

  it('definition adds 0.15 to document (0.8 / 0.35 normalised)', () => {
    for (const q of ['向量数据库是什么', '什么是BM25', '解释一下这个词的意思', 'What is a vector database?', "what’s FAISS", 'Explain BM25', 'How does recall work']) {
      expectWeights(q, ['definition'], 0.8 / 1.15, 0.35 / 1.15);
    }
  });

  it('adds each intent once, and several intents together', () => {
    expectWeights('who is my friend, my brother and my boss', ['relationship'], 0.65 / 1.2, 0.55 / 1.2);
    expectWeights('我什么时候认识小明的', ['relationship', 'temporal'], 0.5, 0.5);
    expectWeights('When did I meet my friend Bob, and why?', ['relationship', 'temporal', 'definition'], 0.8 / 1.45, 0.65 / 1.45);
  });

  it('matches English by whole words, case-insensitively', () => {
    expect(detectIntents('the whole knowledge timeline, whenever')).toEqual([]);
    expect(detectIntents('WHO')).toEqual(['relationship']);
    expect(detectIntents("Bob's friend's birthday")).toEqual(['relationship']);
    expect(detectIntents('what   is\nthis')).toEqual(['definition']);
    expect(detectIntents('小明是who')).toEqual(['relationship']);
  });
});

describe('routeWeights: clamping and normalisation', () => {
  it('clamps each weight to [0.05, 0.95] before normalising', () => {
    const skewed = { ...defaultRecallSettings, documentRouteWeight: 1.5, graphRouteWeight: -1 };
    const w = weights('tea', skewed);
    expect(w.document).toBeCloseTo(0.95, 12);
    expect(w.graph).toBeCloseTo(0.05, 12);
    const related = weights('my sister', skewed); // graph −1 + 0.2 → 0.05 still
    expect(related.document).toBeCloseTo(0.95, 12);
    const fromZero = weights('my sister', { ...skewed, graphRouteWeight: 0 }); // 0.95 / 0.2
    expect(fromZero.document).toBeCloseTo(0.95 / 1.15, 12);
    expect(fromZero.graph).toBeCloseTo(0.2 / 1.15, 12);
  });

  it('always sums to 1', () => {
    for (const q of ['', 'tea', '谁', 'when and who and why', '什么是关系，昨天？']) {
      const w = weights(q, { ...defaultRecallSettings, documentRouteWeight: 0.3, graphRouteWeight: 0.9 });
      expect(w.document + w.graph).toBeCloseTo(1, 12);
    }
  });
});

describe('combineRoutes', () => {
  const doc = new Map([['a', 1], ['b', 0.75]]);
  const graph = new Map([['b', 0.3], ['c', 1]]);
  const w = { document: 0.65, graph: 0.35 };

  it('weights each route and adds the bonus to a memory found by both', () => {
    const combined = combineRoutes(doc, graph, w, 0.08);
    expect([...combined.keys()]).toEqual(['b', 'a', 'c']);
    const b = combined.get('b');
    expect(b?.parts.document).toBeCloseTo(0.4875, 12);
    expect(b?.parts.graph).toBeCloseTo(0.105, 12);
    expect(b?.parts.bothRoutes).toBe(0.08);
    expect(b?.score).toBeCloseTo(0.6725, 12);
    expect(combined.get('a')).toEqual({ score: 0.65, parts: { document: 0.65, graph: 0, bothRoutes: 0 } });
    expect(combined.get('c')).toEqual({ score: 0.35, parts: { document: 0, graph: 0.35, bothRoutes: 0 } });
  });

  it('without the bonus the single-route memory stays first', () => {
    expect([...combineRoutes(doc, graph, w, 0).keys()]).toEqual(['a', 'b', 'c']);
  });

  it('gives the bonus only to memories the graph itself found, not to its entry-vector hits alone', () => {
    // b reached the graph route only through an entry's vector (a copy of the document route's evidence): no bonus, so a leads.
    const combined = combineRoutes(doc, graph, w, 0.08, new Set(['c']));
    expect([...combined.keys()]).toEqual(['a', 'b', 'c']);
    expect(combined.get('b')?.parts.bothRoutes).toBe(0);
    expect(combineRoutes(doc, graph, w, 0.08, new Set(['b'])).get('b')?.parts.bothRoutes).toBe(0.08);
  });

  it('counts a score of 0 on a route as found there, and breaks ties by id', () => {
    expect(combineRoutes(new Map([['x', 0]]), new Map([['x', 0]]), w, 0.08).get('x')?.parts.bothRoutes).toBe(0.08);
    expect([...combineRoutes(new Map([['z', 1], ['y', 1]]), new Map(), w, 0.08).keys()]).toEqual(['y', 'z']);
  });
});
