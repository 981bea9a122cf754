import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkEventCeilings, logCeilings, utf8Bytes } from '../src/events/bounds.js';
import { ValidationError } from '../src/events/errors.js';

/*
 * checkEventCeilings walks a new event without recursion and counts leaves where it finds them
 * (a tick's batch has a hundred thousand values). Whatever the value, it must count what a plain
 * recursive walk counts (one per value, plus each string's UTF-8 bytes, own enumerable keys only)
 * and refuse exactly the values over the ceilings, naming the same field.
 */

function reference(value: unknown): number {
  if (typeof value === 'string') return 1 + utf8Bytes(value);
  if (Array.isArray(value)) return value.reduce((n: number, item) => n + reference(item), 1);
  if (typeof value === 'object' && value !== null) return Object.keys(value).reduce((n, key) => n + reference((value as Record<string, unknown>)[key]), 1);
  return 1;
}

const leaf = fc.oneof(fc.string({ unit: 'grapheme' }), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node')), fc.dictionary(fc.string(), tie('node')), tie('inherits')),
  // Inherited keys are not the event's: neither walk counts them.
  inherits: fc.tuple(fc.dictionary(fc.string(), tie('node')), fc.dictionary(fc.string(), leaf)).map(([own, inherited]) => Object.assign(Object.create(inherited) as object, own)),
})).node;

function outcome(run: () => number): number | string {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return `${error.field} | ${error.message}`;
  }
}

describe('the log ceilings walk', () => {
  it('given any value, when it is checked, then it counts what a recursive walk counts', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(checkEventCeilings(v, 3)).toBe(reference(v));
      }),
      { numRuns: 500 },
    );
  });

  it('given a value with a string over the text ceiling somewhere, when it is checked, then the error names that string', () => {
    const big = 'x'.repeat(logCeilings.textBytes + 1);
    fc.assert(
      fc.property(value, fc.array(fc.string({ minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }), (v, path) => {
        // Nest the long string under `path` beside the random value.
        const event = path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), big);
        const both = { other: v, at: event };
        expect(outcome(() => checkEventCeilings(both, 2))).toBe(`events.2.at.${path.join('.')} | invalid events.2.at.${path.join('.')}: is ${big.length} bytes; the limit is ${logCeilings.textBytes}, the most the log takes`);
      }),
      { numRuns: 20 },
    );
  });

  it('given an event over the event ceiling in many small values, when it is checked, then the event is refused as a whole', () => {
    const values = Array.from({ length: 5 }, () => 'y'.repeat(logCeilings.textBytes - 10));
    expect(outcome(() => checkEventCeilings({ data: values }, 0))).toBe(`events.0 | invalid events.0: the event is over ${logCeilings.eventBytes} bytes, the most the log takes`);
    expect(outcome(() => checkEventCeilings(values.slice(0, 3), 0))).toBe(reference(values.slice(0, 3)));
  });
});
