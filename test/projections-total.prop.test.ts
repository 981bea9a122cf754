import fc from 'fast-check';
import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { eventUnion, eventTypes, type DomainEvent } from '../src/events/catalog.js';
import { engineProjections } from '../src/engine/indexes.js';
import { applyVectorPage, emptyGeneration } from '../src/projections/vectors/apply.js';
import { graphEntryVectorFeed, memoryVectorFeed } from '../src/projections/vectors/feed.js';
import { openTestStore } from './support/store.js';
import { testVectorSource } from './support/vector-source.js';
import { arbitraryOf } from './support/zod-arbitrary.js';

/*
 * Projections are total (issue 11, ADR 23): any history of valid events, of every type in the
 * catalog, with texts of every script and extreme lengths within their bounds and empty lists,
 * goes through every projection (SQLite ones and both vector feeds) without one throwing.
 */

const members: readonly z.ZodType[] = eventUnion().options;
const typeOf = (schema: z.ZodType): string => (schema as unknown as { shape: { type: { value: string } } }).shape.type.value;

/** One valid event of the member schema (refinements checked by parsing, as the log will). */
const eventOf = (schema: z.ZodType, long: number): fc.Arbitrary<DomainEvent> =>
  arbitraryOf(schema, long)
    .map((e) => {
      const event = e as DomainEvent;
      // Set by the log on read, refused on write.
      const { erased: _erased, ...metadata } = event.metadata;
      return { ...event, metadata } as DomainEvent;
    })
    .filter((e) => schema.safeParse(e).success);

const byType = new Map(members.map((m) => [typeOf(m), m]));
const anyEvent = (long: number) => fc.oneof(...members.map((m) => eventOf(m, long)));
/** Every type once, in a random order, with random events between: a history. */
const history = (long: number) =>
  fc
    .tuple(fc.shuffledSubarray([...byType.keys()], { minLength: byType.size }), fc.array(anyEvent(long), { maxLength: 25 }))
    .chain(([order, extra]) => fc.tuple(fc.tuple(...order.map((t) => eventOf(byType.get(t) as z.ZodType, long))), fc.constant(extra)))
    .map(([each, extra]) => [...each, ...extra]);

async function playThroughEveryProjection(events: readonly DomainEvent[]): Promise<void> {
  const store = openTestStore(engineProjections, 5);
  try {
    let n = 0;
    for (const event of events) {
      n += 1;
      await store.log.append(`stream-${n % 4}`, [{ ...event, metadata: { ...event.metadata, eventId: `e${n}` } }]);
    }
    await store.runner.catchUp();
    const failed = store.runner.status().filter((s) => s.failed !== null);
    expect(failed.map((s) => `${s.name}: ${s.failed?.error}`)).toEqual([]);
    const page = await store.log.readAll({ limit: 10_000 });
    for (const feed of [memoryVectorFeed, graphEntryVectorFeed]) {
      const source = testVectorSource(8);
      applyVectorPage(emptyGeneration(1, source), page, source, feed);
    }
  } finally {
    store.close();
  }
}

describe('every projection applies any valid history without throwing', () => {
  it('covers every event type of the catalog', () => {
    expect([...byType.keys()].sort()).toEqual([...eventTypes].sort());
  });

  it('short texts of every script, empty lists, colliding ids', async () => {
    await fc.assert(fc.asyncProperty(history(60), playThroughEveryProjection), { numRuns: 15 });
  }, 600_000);

  it('texts at extreme lengths within their bounds', async () => {
    await fc.assert(fc.asyncProperty(history(70_000), playThroughEveryProjection), { numRuns: 3 });
  }, 600_000);
});
