import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../src/events/log/event-log.js';
import { byteCost, typeCost } from '../src/projections/part-cost.js';

// Only the type matters to the cost model.
const events = (types: readonly string[]): RecordedEvent[] => types.map((type, i) => ({ type, globalPosition: BigInt(i + 1) }) as unknown as RecordedEvent);

/** A model that has applied a part of each type alone, at that type's true cost per event. */
function learnt(costs: Readonly<Record<string, number>>) {
  const model = typeCost();
  for (const [type, ms] of Object.entries(costs)) {
    const part = events([type, type, type, type]);
    model.took(ms * part.length, part);
    model.took(ms * part.length, part);
  }
  return model;
}

describe('the cost model that sizes a replay part (issue 17)', () => {
  it('given cheap and heavy event types learnt, when a page runs from cheap into heavy ones, then the part stops at the budget', () => {
    const model = learnt({ cheap: 0.01, heavy: 5 });
    const page = events([...Array<string>(100).fill('cheap'), ...Array<string>(10).fill('heavy')]);
    // 100 × 0.01 + 5 = 6 ms; a second heavy one would make 11 > 10.
    expect(model.fit(page, 0, 10)).toBe(101);
    expect(model.fit(page, 100, 10)).toBe(2);
  });

  it('given an event heavier than the whole budget, then it is a part of its own (an event cannot be split)', () => {
    const model = learnt({ heavy: 80 });
    expect(model.fit(events(['heavy', 'heavy']), 0, 10)).toBe(1);
  });

  it('given a type not measured yet, then it is applied alone first, and a part stops before the next unmeasured type', () => {
    const model = learnt({ cheap: 0.01 });
    const page = events(['heavy', 'cheap', 'cheap', 'other', 'cheap']);
    expect(model.fit(page, 0, 10)).toBe(1);
    expect(model.fit(page, 1, 10)).toBe(2);
    model.took(30, page.slice(0, 1));
    // Learnt alone: 30 ms, over the budget, so it stays a part of its own.
    expect(model.fit(events(['heavy', 'heavy']), 0, 10)).toBe(1);
  });

  it('given nothing read yet, then the first read is sized by an assumed rate, not by a count', () => {
    // 3 KB a ms, what sealed events decode at, over a quarter of the budget (cold code, keys not
    // derived yet): about 77 events of 100 bytes for a budget of 10 ms.
    const small = byteCost().fit(Array<number>(5000).fill(100), 0, 10);
    expect(small).toBeGreaterThan(60);
    expect(small).toBeLessThan(90);
    // Decays of 75 KB each, about 24 ms at the assumed rate: one at a time, not 64 (before, about 60 ms).
    expect(byteCost().fit(Array<number>(20).fill(75_000), 0, 10)).toBe(1);
  });

  it('given a part that cost more per byte than estimated, then the estimate rises at once, and falls by halves', () => {
    const model = byteCost();
    model.took(1, 4096);
    expect(model.fit(Array<number>(100).fill(1024), 0, 10)).toBe(40);
    model.took(4, 4096);
    expect(model.fit(Array<number>(100).fill(1024), 0, 10)).toBe(10);
    model.took(1, 4096);
    expect(model.fit(Array<number>(100).fill(1024), 0, 10)).toBe(16);
  });

  it('given a rate per byte learnt, when the events are large, then a read part holds as many as their bytes allow', () => {
    const model = byteCost();
    model.took(1, 1024);
    model.took(1, 1024);
    // 4 KB each at 1 ms a KB: two fit 10 ms, a third would not.
    expect(model.fit(Array<number>(10).fill(4096), 0, 10)).toBe(2);
  });

  it('cuts any page into parts that cover it in order, each within the budget unless it is one event', () => {
    const type = fc.constantFrom('a', 'b', 'c', 'd');
    fc.assert(
      fc.property(
        fc.record({ a: fc.double({ min: 0.001, max: 40, noNaN: true }), b: fc.double({ min: 0.001, max: 40, noNaN: true }), c: fc.double({ min: 0.001, max: 40, noNaN: true }), d: fc.double({ min: 0.001, max: 40, noNaN: true }) }),
        fc.array(type, { minLength: 1, maxLength: 300 }),
        fc.double({ min: 1, max: 30, noNaN: true }),
        (costs, types, budget) => {
          const model = learnt(costs);
          const page = events(types);
          let at = 0;
          while (at < page.length) {
            const n = model.fit(page, at, budget);
            expect(n).toBeGreaterThanOrEqual(1);
            const cost = page.slice(at, at + n).reduce((sum, e) => sum + costs[e.type as keyof typeof costs], 0);
            if (n > 1) expect(cost).toBeLessThanOrEqual(budget * (1 + 1e-9));
            at += n;
          }
          expect(at).toBe(page.length);
        },
      ),
    );
  });
});
