import { describe, expect, it } from 'vitest';
import { chainsToAdjacent, withConversationContext, type Adjacent } from '../src/queries/recall/context.js';
import { defaultRecallSettings } from '../src/queries/recall/types.js';

// A session of four turns in order t1 t2 t3 t4; t2 asks, t3 answers.
const session: Record<string, Adjacent> = {
  t1: { previous: null, next: 't2' },
  t2: { previous: 't1', next: 't3' },
  t3: { previous: 't2', next: 't4' },
  t4: { previous: 't3', next: null },
};
const adjacent = new Map(Object.entries(session));
const weights = { contextNextWeight: 0.7, contextPreviousWeight: 0.5 };

describe('withConversationContext', () => {
  it('defaults lend 0.7 to the next memory and 0.5 to the previous one', () => {
    expect([defaultRecallSettings.contextNextWeight, defaultRecallSettings.contextPreviousWeight]).toEqual([0.7, 0.5]);
  });

  it('brings in the reply to a matched question, below the question, and the turn before it', () => {
    const out = withConversationContext([{ id: 't2', score: 1 }, { id: 'x', score: 0.6 }], adjacent, weights);
    expect(out).toEqual([
      { id: 't2', score: 1, context: 0 },
      { id: 't3', score: 0.7, context: 0.7 },
      { id: 'x', score: 0.6, context: 0 },
      { id: 't1', score: 0.5, context: 0.5 },
    ]);
  });

  it('keeps a candidate own score when it is higher than what a neighbour lends, and takes the highest loan', () => {
    const out = withConversationContext([{ id: 't2', score: 1 }, { id: 't4', score: 0.9 }, { id: 't3', score: 0.5 }], adjacent, weights);
    // t3 borrows max(0.7 × 1 from t2, 0.5 × 0.9 from t4) = 0.7; t2 keeps 1 over 0.5 × 0.5 from t3.
    expect(out.map((c) => [c.id, c.score, c.context])).toEqual([
      ['t2', 1, 0],
      ['t4', 0.9, 0],
      ['t3', 0.7, 0.7 - 0.5],
      ['t1', 0.5, 0.5],
    ]);
  });

  it('changes nothing without neighbours or with both weights at 0', () => {
    const pool = [{ id: 'b', score: 0.4 }, { id: 'a', score: 0.4 }, { id: 't2', score: 0.3 }];
    const plain = [{ id: 'a', score: 0.4, context: 0 }, { id: 'b', score: 0.4, context: 0 }, { id: 't2', score: 0.3, context: 0 }];
    expect(withConversationContext(pool, new Map(), weights)).toEqual(plain);
    expect(withConversationContext(pool, adjacent, { contextNextWeight: 0, contextPreviousWeight: 0 })).toEqual(plain);
  });
});

describe('context reaching further than the adjacent turns', () => {
  it('lends each step outwards its share of the step before: 0.7 then 0.49 after, 0.5 then 0.25 before', () => {
    const out = withConversationContext([{ id: 't2', score: 1 }], adjacent, { ...weights, contextReach: 2 });
    expect(out.map((c) => [c.id, c.score])).toEqual([
      ['t2', 1],
      ['t3', 0.7],
      ['t1', 0.5],
      ['t4', 0.7 * 0.7],
    ]);
  });

  it('reach 1 is the adjacent turns only', () => {
    const out = withConversationContext([{ id: 't2', score: 1 }], adjacent, { ...weights, contextReach: 1 });
    expect(out.map((c) => c.id)).toEqual(['t2', 't3', 't1']);
  });
});

describe('chainsToAdjacent', () => {
  it('links a memory to its nearest neighbours and each of them on outwards', () => {
    const links = chainsToAdjacent(new Map([['t2', { before: ['t1'], after: ['t3', 't4'] }]]), () => true);
    expect(links.get('t2')).toEqual({ previous: 't1', next: 't3' });
    expect(links.get('t3')).toEqual({ previous: null, next: 't4' });
    expect(links.get('t1')).toBeUndefined();
  });

  it('stops a chain at the first memory that does not join (a summary, a note) and leaves out a memory that does not', () => {
    const joins = (id: string) => id !== 's';
    const links = chainsToAdjacent(new Map([['t2', { before: [], after: ['s', 't4'] }], ['s', { before: ['t2'], after: ['t4'] }]]), joins);
    expect(links.get('t2')).toEqual({ previous: null, next: null });
    expect(links.has('s')).toBe(false);
    expect(links.has('t4')).toBe(false);
  });
});
