import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkEventCeilings } from '../src/events/bounds.js';
import { eventSchemaOf } from '../src/events/catalog.js';
import { ValidationError, parseOrThrow } from '../src/events/errors.js';
import { parseEvent } from '../src/events/event-parser.js';
import { testEventMetadata } from './support/events.js';

/*
 * A tick's MemoryImportanceDecayed is checked by a schema that keeps its decays instead of copying
 * each (src/events/decay-batch.ts). Whatever the input, parseEvent must give what the event's own
 * schema gives: the same event (same JSON, so the same stored row and hash) when valid, the same
 * error, naming the same field, when not.
 */

const schema = () => eventSchemaOf('MemoryImportanceDecayed')!;

const canonical = fc
  .record({
    memoryId: fc.string({ minLength: 1, maxLength: 40 }),
    from: fc.double({ min: 0, max: 1, noNaN: true }),
    to: fc.double({ min: 0, max: 1, noNaN: true }),
    accessFrom: fc.nat(1000),
    accessTo: fc.nat(1000),
  })
  .map((d) => ({ ...d })); // fast-check's records have no prototype; the decider's are plain objects

/** Values at and across the schema's bounds. */
const edge = fc.constantFrom<unknown>(0, 1, -0, -0.0001, 1.0001, 1.5, 2, 0.5, 3.5, 2 ** 53, -1, Number.NaN, Number.POSITIVE_INFINITY, null, '0.5', true, undefined, '', 'm'.repeat(200), 'm'.repeat(201));
const keys = ['memoryId', 'from', 'to', 'accessFrom', 'accessTo', 'extra'];
type Decay = Record<string, unknown>;
/** A decay of the decider with one change: a value at an edge, two keys swapped, a key dropped or added, or another prototype. */
const nearDecay: fc.Arbitrary<Decay> = fc.oneof(
  fc.tuple(canonical, fc.constantFrom(...keys), edge).map(([d, k, v]): Decay => ({ ...d, [k]: v })),
  fc.tuple(canonical, fc.nat(4), fc.nat(4)).map(([d, i, j]): Decay => {
    const order = Object.keys(d);
    [order[i], order[j]] = [order[j] as string, order[i] as string];
    return Object.fromEntries(order.map((k) => [k, (d as Decay)[k]]));
  }),
  fc.tuple(canonical, fc.constantFrom(...keys)).map(([d, k]): Decay => Object.fromEntries(Object.entries(d).filter(([key]) => key !== k))),
  canonical.map((d): Decay => Object.assign(Object.create(null) as Decay, d)),
  canonical.map((d): Decay => Object.assign(Object.create({ inherited: 1 }) as Decay, d)),
);

const event = (decays: unknown, data: Record<string, unknown> = {}) => ({
  type: 'MemoryImportanceDecayed',
  schemaVersion: 2,
  data: { tickId: 'tick-2030-01-01', decays, ...data },
  metadata: testEventMetadata(),
});

function outcome(run: () => unknown): { ok: true; json: string } | { ok: false; error: string } {
  try {
    return { ok: true, json: JSON.stringify(run()) };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { ok: false, error: `${error.field}: ${error.message}` };
  }
}

function expectSameAsSchema(input: unknown): void {
  const size = checkEventCeilings(input, 0);
  expect(outcome(() => parseEvent(input, size, 'events.0'))).toEqual(outcome(() => parseOrThrow(schema(), input, 'events.0')));
}

describe('MemoryImportanceDecayed: the keeping schema', () => {
  it('given decays of the decider, when parsed, then the event is the schema\'s and its list is kept', () => {
    fc.assert(
      fc.property(fc.array(canonical, { minLength: 1, maxLength: 50 }), (decays) => {
        const input = event(decays);
        const parsed = parseEvent(input, checkEventCeilings(input, 0));
        expect(JSON.stringify(parsed)).toBe(JSON.stringify(parseOrThrow(schema(), input)));
        expect((parsed.data as { decays: unknown }).decays).toBe(decays);
      }),
      { numRuns: 200 },
    );
  });

  it('given decays near the decider\'s (a value at an edge, keys swapped, dropped or added, another prototype), when parsed, then result or error is the schema\'s', () => {
    fc.assert(fc.property(fc.array(fc.oneof(canonical, nearDecay), { minLength: 0, maxLength: 4 }), (decays) => expectSameAsSchema(event(decays))), { numRuns: 500 });
  });

  it('given a bad envelope or list, when parsed, then the error is the schema\'s', () => {
    for (const input of [
      event(Array.from({ length: 1001 }, (_, i) => ({ memoryId: `m${i}`, from: 0.5, to: 0.4, accessFrom: 0, accessTo: 0 }))),
      event('not a list'),
      event([{ memoryId: 'm', from: 0.5, to: 0.4, accessFrom: 0, accessTo: 0 }], { extra: 1 }),
      event([{ memoryId: 'm', from: 0.5, to: 0.4, accessFrom: 0, accessTo: 0 }], { tickId: '' }),
      { ...event([{ memoryId: 'm', from: 0.5, to: 0.4, accessFrom: 0, accessTo: 0 }]), schemaVersion: 1 },
      { ...event([{ memoryId: 'm', from: 0.5, to: 0.4, accessFrom: 0, accessTo: 0 }]), metadata: {} },
    ]) {
      expectSameAsSchema(input);
    }
  });
});
