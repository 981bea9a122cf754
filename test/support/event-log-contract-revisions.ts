import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../../src/events/catalog.js';
import { ConcurrencyError, ValidationError } from '../../src/events/errors.js';
import type { EventLog, ExpectedRevision } from '../../src/events/log/event-log.js';
import { snapshot, useFreshLog, type EventLogFactory, type EventLogUnderTest } from './event-log-contract-shared.js';
import { arbitraryMemoryEvent, memoryEvents, memoryWrittenEvent } from './events.js';

export function revisionContract(factory: EventLogFactory, concurrencyRuns?: number): void {
  describe('expected revision', () => {
    const log = useFreshLog(factory);
    const one = () => memoryEvents('m1', 1);
    const conflict = async (streamId: string, expectedRevision: ExpectedRevision) => {
      const before = await snapshot(log(), streamId);
      const attempt = log().append(streamId, one(), { expectedRevision });
      await expect(attempt).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(attempt).rejects.toMatchObject({ streamId });
      expect(await snapshot(log(), streamId)).toEqual(before);
    };

    it("'any' appends to a new stream and to an existing one", async () => {
      await expect(log().append('s', one(), { expectedRevision: 'any' })).resolves.toMatchObject({ nextExpectedRevision: 0n });
      await expect(log().append('s', one(), { expectedRevision: 'any' })).resolves.toMatchObject({ nextExpectedRevision: 1n });
      expect(await log().readStream('s')).toHaveLength(2);
    });

    it("'no_stream' appends to a new stream only", async () => {
      await expect(log().append('s', one(), { expectedRevision: 'no_stream' })).resolves.toMatchObject({ nextExpectedRevision: 0n });
      await conflict('s', 'no_stream');
    });

    it("'stream_exists' appends to an existing stream only", async () => {
      await conflict('s', 'stream_exists');
      expect(await log().headPosition()).toBe(0n);
      await log().append('s', one(), { expectedRevision: 'no_stream' });
      await expect(log().append('s', one(), { expectedRevision: 'stream_exists' })).resolves.toMatchObject({
        nextExpectedRevision: 1n,
      });
    });

    it('an exact revision appends only when the stream is at that revision', async () => {
      await conflict('s', 0n);
      await log().append('s', memoryEvents('m1', 3), { expectedRevision: 'no_stream' });
      await conflict('s', 1n);
      await conflict('s', 3n);
      const result = await log().append('s', one(), { expectedRevision: 2n });
      expect(result.nextExpectedRevision).toBe(3n);
      await expect(log().append('s', one(), { expectedRevision: result.nextExpectedRevision })).resolves.toMatchObject({
        nextExpectedRevision: 4n,
      });
      await conflict('s', 3n);
    });

    it("one stream's revision does not satisfy another stream", async () => {
      await log().append('a', memoryEvents('a', 2));
      await conflict('b', 1n);
      await conflict('b', 'stream_exists');
      await expect(log().append('b', one(), { expectedRevision: 'no_stream' })).resolves.toMatchObject({ nextExpectedRevision: 0n });
    });
  });

  describe('refused appends change nothing', () => {
    const log = useFreshLog(factory);
    const refused = async (events: DomainEvent[], field: string) => {
      await log().append('s', memoryEvents('m1', 2));
      const before = await snapshot(log(), 's');
      const attempt = log().append('s', events, { expectedRevision: 1n });
      await expect(attempt).rejects.toBeInstanceOf(ValidationError);
      await expect(attempt).rejects.toMatchObject({ field: expect.stringContaining(field) });
      expect(await snapshot(log(), 's')).toEqual(before);
      expect(before.head).toBeGreaterThan(0n);
    };

    it('an importance out of range anywhere in the batch refuses the whole batch, naming the field', async () => {
      const bad = memoryWrittenEvent('m1', 'too important', { importance: 2 });
      await refused([memoryWrittenEvent('m1', 'fine'), bad, memoryWrittenEvent('m1', 'fine too')], 'events.1.data.importance');
    });

    it('an empty or blank text refuses the batch, naming the field', async () => {
      await refused([memoryWrittenEvent('m1', '')], 'events.0.data.text');
      await refused([memoryWrittenEvent('m1', 'fine'), memoryWrittenEvent('m1', '   ')], 'events.1.data.text');
    });

    it('an event with an unknown field or bad metadata refuses the batch, naming the field', async () => {
      const extra = { ...memoryWrittenEvent('m1', 'x'), data: { ...memoryWrittenEvent('m1', 'x').data, colour: 'red' } };
      await refused([memoryWrittenEvent('m1', 'fine'), extra as DomainEvent], 'events.1.data.colour');
      await refused([memoryWrittenEvent('m1', 'x', { metadata: { occurredAt: 'yesterday' } })], 'events.0.metadata.occurredAt');
    });

    it('an empty batch is refused', async () => {
      const attempt = log().append('s', []);
      await expect(attempt).rejects.toBeInstanceOf(ValidationError);
      await expect(attempt).rejects.toMatchObject({ field: 'events' });
      expect(await log().headPosition()).toBe(0n);
      expect(await log().readStream('s')).toEqual([]);
    });

    it('an empty stream id is refused', async () => {
      await expect(log().append('', memoryEvents('m1', 1))).rejects.toBeInstanceOf(ValidationError);
      expect(await log().headPosition()).toBe(0n);
    });

    it('a conflict on a valid batch appends none of it', async () => {
      await log().append('s', memoryEvents('m1', 2));
      const before = await snapshot(log(), 's');
      await expect(log().append('s', memoryEvents('m1', 3), { expectedRevision: 0n })).rejects.toBeInstanceOf(ConcurrencyError);
      expect(await snapshot(log(), 's')).toEqual(before);
    });
  });

  concurrentAppendProperty(factory, concurrencyRuns);
}

/** Two appends to one stream with the same expectation, started together: one wins whole, the other conflicts. */
export function concurrentAppendProperty(factory: EventLogFactory, numRuns = 200): void {
  describe('concurrent appends (property)', () => {
    let under: EventLogUnderTest;
    beforeAll(async () => {
      under = await factory();
    });
    afterAll(async () => {
      await under.cleanup();
    });
    let run = 0;

    it('with the same expected revision exactly one succeeds and the other gets a ConcurrencyError', async () => {
      const batch = fc.array(arbitraryMemoryEvent, { minLength: 1, maxLength: 5 });
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: 3 }), batch, batch, async (existing, a, b) => {
          run += 1;
          const streamId = `race-${run}`;
          await raceOnce(under.log, streamId, existing, a, b);
        }),
        { numRuns },
      );
    });
  });
}

/** Runs one race on `log` and checks its outcome; also used by store-specific tests with two logs. */
export async function raceOnce(
  log: EventLog,
  streamId: string,
  existing: number,
  a: DomainEvent[],
  b: DomainEvent[],
  other: EventLog = log,
): Promise<void> {
  if (existing > 0) await log.append(streamId, memoryEvents(streamId, existing), { expectedRevision: 'no_stream' });
  const expectedRevision: ExpectedRevision = existing === 0 ? 'no_stream' : BigInt(existing - 1);
  const headBefore = await log.headPosition();
  const results = await Promise.allSettled([
    log.append(streamId, a, { expectedRevision }),
    other.append(streamId, b, { expectedRevision }),
  ]);
  const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
  expect(won).toHaveLength(1);
  const loser = results.find((r) => r.status === 'rejected');
  expect(loser?.status === 'rejected' ? loser.reason : undefined).toBeInstanceOf(ConcurrencyError);
  const winner = won[0] === 0 ? a : b;
  const stream = await log.readStream(streamId);
  expect(stream.map((e) => e.metadata.eventId).slice(existing)).toEqual(winner.map((e) => e.metadata.eventId));
  expect(stream.map((e) => e.streamRevision)).toEqual(stream.map((_, i) => BigInt(i)));
  expect(await log.headPosition()).toBeGreaterThan(headBefore);
  expect((await log.readAll({ from: headBefore + 1n })).map((e) => e.metadata.eventId)).toEqual(winner.map((e) => e.metadata.eventId));
}
