import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { favour } from '../src/queries/recall/favour.js';
import { namedMemories, names } from '../src/queries/recall/participants.js';
import { memoriesOfPeriods, namedPeriods, speaksOf } from '../src/queries/recall/when.js';
import { isChineseStopWord } from '../src/projections/text/stopwords.js';
import { tokenize } from '../src/projections/text/tokenizer.js';

const day = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
// Asked on Friday 1 May 2026, noon.
const now = Date.UTC(2026, 4, 1, 12);
const periods = (q: string) => namedPeriods(q, now).map((p) => `${iso(p.from)}..${iso(p.to)}`);

describe('participants the query names', () => {
  it('names a person as a whole word, case aside, and a Chinese name as a substring', () => {
    expect(names('What did caroline research?', 'Caroline')).toBe(true);
    expect(names('What did Carolines say?', 'Caroline')).toBe(false);
    expect(names('王丽在哪里上班？', '王丽')).toBe(true);
    expect(names('anything', '  ')).toBe(false);
  });

  it('given a question about one of two speakers, when the pool is read, then only that speaker\'s memories are chosen', () => {
    const pool = new Map([['a', ['Caroline']], ['b', ['Melanie']], ['c', []]]);
    expect([...namedMemories('What did Caroline research?', pool)]).toEqual(['a']);
  });

  it('chooses the same memories with its ASCII shortcut as name by name through `names`', () => {
    // Letters that fold to ASCII ones (Kelvin sign, long s, dotted I) and a few others beside ASCII.
    const char = fc.constantFrom('a', 'B', 'k', 'K', 's', 'S', ' ', '-', '.', '\u212a', '\u017f', '\u0130', 'é', '王');
    const word = fc.array(char, { minLength: 1, maxLength: 5 }).map((c) => c.join(''));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 6 }).map((w) => w.join(' ')), fc.array(word, { minLength: 1, maxLength: 5 }), (query, people) => {
        const pool = new Map(people.map((p, i) => [`m${i}`, [p, i % 2 === 0 ? 'Zed' : p]]));
        const all = new Set([...pool.values()].flat());
        const named = new Set([...all].filter((p) => names(query, p)));
        const expected = named.size === 0 || named.size === all.size ? [] : [...pool].filter(([, ps]) => ps.some((p) => named.has(p))).map(([id]) => id);
        expect([...namedMemories(query, pool)]).toEqual(expected);
      }),
      { numRuns: 2000, seed: 5 },
    );
  });

  it('chooses none when the query names every participant, or none of them', () => {
    const pool = new Map([['a', ['Caroline']], ['b', ['Melanie']]]);
    expect(namedMemories('What did Caroline tell Melanie?', pool).size).toBe(0);
    expect(namedMemories('What happened at the lake?', pool).size).toBe(0);
  });
});

describe('time expressions', () => {
  it('reads dates, months, years and relative expressions, counting back from the request time', () => {
    expect(periods('What painting did Melanie show on October 13, 2023?')).toEqual(['2023-10-13..2023-10-14']);
    expect(periods('What did Gina find on 1 February, 2023?')).toEqual(['2023-02-01..2023-02-02']);
    expect(periods('What setback did she face in October 2023?')).toEqual(['2023-10-01..2023-11-01']);
    expect(periods('When did she go camping in June?')).toEqual(['2025-06-01..2025-07-01']);
    expect(periods('What did I buy in March?')).toEqual(['2026-03-01..2026-04-01']);
    expect(periods('How often at the beach in 2023?')).toEqual(['2023-01-01..2024-01-01']);
    expect(periods('What happened yesterday?')).toEqual(['2026-04-30..2026-05-01']);
    expect(periods('What did I do last week?')).toEqual(['2026-04-20..2026-04-27']);
    expect(periods('Where did John go last year?')).toEqual(['2025-01-01..2026-01-01']);
    expect(periods('我2023年5月做了什么')).toEqual(['2023-05-01..2023-06-01']);
    expect(periods('五月二十号是什么日子')).toEqual(['2025-05-20..2025-05-21']);
    expect(periods('去年我们去哪了')).toEqual(['2025-01-01..2026-01-01']);
    expect(periods('我上周去了哪里？')).toEqual(['2026-04-20..2026-04-27']);
  });

  it('names no period for words that only look like one ("may", a bare number)', () => {
    expect(periods('What may happen to 12 people?')).toEqual([]);
  });

  it('counts a memory written in the period or within its length after it (a day at least, a month at most)', () => {
    const june = { from: Date.UTC(2023, 5, 1), to: Date.UTC(2023, 6, 1) };
    expect(speaksOf(Date.UTC(2023, 5, 15), june)).toBe(true);
    expect(speaksOf(Date.UTC(2023, 6, 20), june)).toBe(true);
    expect(speaksOf(Date.UTC(2023, 7, 5), june)).toBe(false);
    expect(speaksOf(Date.UTC(2023, 4, 31), june)).toBe(false);
    const oneDay = { from: Date.UTC(2023, 9, 13), to: Date.UTC(2023, 9, 14) };
    expect(speaksOf(Date.UTC(2023, 9, 14, 12), oneDay)).toBe(true);
    expect(speaksOf(Date.UTC(2023, 9, 15, 1), oneDay)).toBe(false);
  });

  it('chooses the memories written in a named period, and none when the query names no period', () => {
    const written = new Map([['march', Date.UTC(2026, 2, 10)], ['april', Date.UTC(2026, 3, 10) + 40 * day]]);
    expect([...memoriesOfPeriods('What did I buy in March?', now, written)]).toEqual(['march']);
    expect(memoriesOfPeriods('What did I buy?', now, written).size).toBe(0);
  });

  it('never throws and reads only well-formed periods, whatever the text', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        for (const p of namedPeriods(text, now)) expect(p.to).toBeGreaterThan(p.from);
      }),
    );
  });
});

describe('favour', () => {
  it('scales the chosen memories by (1 + bonus), re-sorts, and reports the extra', () => {
    const out = favour([{ id: 'a', score: 0.5 }, { id: 'b', score: 0.3 }, { id: 'c', score: 0 }], new Set(['b', 'c']), 1);
    expect(out.pool).toEqual([{ id: 'b', score: 0.6 }, { id: 'a', score: 0.5 }, { id: 'c', score: 0 }]);
    expect([...out.extra]).toEqual([['b', 0.3], ['c', 0]]);
  });

  it('with a bonus of 0 or nothing chosen, changes nothing (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ id: fc.string(), score: fc.double({ min: 0, max: 1, noNaN: true }) })), fc.boolean(), (pool, zero) => {
        const out = favour(pool, zero ? new Set(pool.map((p) => p.id)) : new Set(), zero ? 0 : 1);
        expect(out.pool).toEqual(pool);
        expect(out.extra.size).toBe(0);
      }),
    );
  });
});

describe('Chinese stop words', () => {
  it('a compound made only of stop-word characters is a stop word (我的 like English "my"); one with a content character is not', () => {
    expect(isChineseStopWord('我的')).toBe(true);
    expect(isChineseStopWord('为了')).toBe(true);
    expect(isChineseStopWord('宠物')).toBe(false);
    expect(isChineseStopWord('和平')).toBe(false);
    expect(tokenize('我的宠物')).not.toContain('我的');
    expect(tokenize('我的宠物')).toContain('宠物');
  });
});
