import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/events/log/event-log.js';
import { recorded, useFreshLog, type EventLogFactory } from './event-log-contract-shared.js';
import { revisionContract } from './event-log-contract-revisions.js';
import { subscribeContract } from './event-log-contract-subscribe.js';
import { memoryEvents, memoryRestoredEvent, memoryWrittenEvent } from './events.js';

export type { EventLogFactory, EventLogUnderTest } from './event-log-contract-shared.js';

export interface ContractOptions {
  /**
   * True for a log whose positions are 1, 2, 3... (SQLite). EventStoreDB's commit positions only
   * increase, with gaps (ADR 27): the suite then checks order and uniqueness, not the values.
   */
  readonly densePositions?: boolean;
  /** Runs of the concurrent-append property (200 by default). */
  readonly concurrencyRuns?: number;
}

/** The behaviour every EventLog must have, whatever stores it. */
export function eventLogContract(name: string, factory: EventLogFactory, options: ContractOptions = {}): void {
  const dense = options.densePositions ?? true;
  describe(`EventLog contract: ${name}`, () => {
    appendAndReadContract(factory, dense);
    revisionContract(factory, options.concurrencyRuns);
    subscribeContract(factory, dense);
  });
}

function appendAndReadContract(factory: EventLogFactory, dense: boolean): void {
  describe('append and read', () => {
    const log = useFreshLog(factory);

    it('has head 0 and no events when empty', async () => {
      expect(await log().headPosition()).toBe(0n);
      expect(await log().readAll()).toEqual([]);
      expect(await log().readStream('memory-none')).toEqual([]);
    });

    it(`appends one event at revision 0 and ${dense ? 'position 1' : 'a position above 0'}, and reads it back unchanged`, async () => {
      const event = memoryWrittenEvent('m1', 'Alice likes tea', { importance: 0.75, topics: ['tea'] });
      const result = await log().append('memory-m1', [event]);
      const position = result.lastPosition;
      expect(result).toEqual({ nextExpectedRevision: 0n, lastPosition: dense ? 1n : position });
      expect(position).toBeGreaterThan(0n);
      expect(await log().headPosition()).toBe(position);
      expect(await log().readStream('memory-m1')).toEqual([recorded(event, 'memory-m1', 0n, position)]);
      expect(await log().readAll()).toEqual([recorded(event, 'memory-m1', 0n, position)]);
    });

    it('appends many events at once with consecutive revisions and increasing positions', async () => {
      const batch = memoryEvents('m1', 4);
      const result = await log().append('memory-m1', batch);
      expect(result.nextExpectedRevision).toBe(3n);
      const stream = await log().readStream('memory-m1');
      expect(stream.map((e) => e.metadata.eventId)).toEqual(batch.map((e) => e.metadata.eventId));
      expect(stream.map((e) => e.streamRevision)).toEqual([0n, 1n, 2n, 3n]);
      if (dense) expect(stream[0]?.globalPosition).toBe(1n);
      expect(stream[0]?.globalPosition).toBeGreaterThan(0n);
      for (let i = 1; i < stream.length; i += 1) {
        expect(stream[i]!.globalPosition).toBeGreaterThan(stream[i - 1]!.globalPosition);
      }
      expect(result.lastPosition).toBe(stream[3]?.globalPosition);
      expect(await log().headPosition()).toBe(result.lastPosition);
    });

    it('keeps revisions per stream and positions across the whole log', async () => {
      const a = memoryEvents('a', 2);
      const b = memoryEvents('b', 3);
      const first = await log().append('memory-a', a);
      const second = await log().append('memory-b', b);
      const third = await log().append('memory-a', [memoryRestoredEvent('a')]);
      expect([first.nextExpectedRevision, second.nextExpectedRevision, third.nextExpectedRevision]).toEqual([1n, 2n, 2n]);
      expect(second.lastPosition).toBeGreaterThan(first.lastPosition);
      expect(third.lastPosition).toBeGreaterThan(second.lastPosition);
      expect((await log().readStream('memory-a')).map((e) => e.streamRevision)).toEqual([0n, 1n, 2n]);
      expect((await log().readStream('memory-b')).map((e) => e.metadata.eventId)).toEqual(b.map((e) => e.metadata.eventId));
      const all = await log().readAll();
      expect(all.map((e) => e.streamId)).toEqual(['memory-a', 'memory-a', 'memory-b', 'memory-b', 'memory-b', 'memory-a']);
      expect(all.map((e) => e.globalPosition)).toEqual([...all.map((e) => e.globalPosition)].sort((x, y) => (x < y ? -1 : 1)));
      expect(new Set(all.map((e) => e.globalPosition)).size).toBe(all.length);
      expect(await log().headPosition()).toBe(third.lastPosition);
    });

    it('reads a stream from a revision on', async () => {
      const batch = memoryEvents('m1', 5);
      await log().append('memory-m1', batch);
      await log().append('memory-other', memoryEvents('other', 2));
      const tail = await log().readStream('memory-m1', { fromRevision: 3n });
      expect(tail.map((e) => e.streamRevision)).toEqual([3n, 4n]);
      expect(tail.map((e) => e.metadata.eventId)).toEqual(batch.slice(3).map((e) => e.metadata.eventId));
      expect(await log().readStream('memory-m1', { fromRevision: 5n })).toEqual([]);
      expect(await log().readStream('memory-m1', { fromRevision: 0n })).toHaveLength(5);
    });

    it('reads the whole log by from (inclusive), to (inclusive) and limit', async () => {
      await log().append('memory-a', memoryEvents('a', 3));
      await log().append('memory-b', memoryEvents('b', 3));
      const all = await log().readAll();
      expect(all).toHaveLength(6);
      const positions = all.map((e) => e.globalPosition);
      const p = (i: number): bigint => positions[i]!;
      expect((await log().readAll({ from: p(2) })).map((e) => e.globalPosition)).toEqual(positions.slice(2));
      expect((await log().readAll({ to: p(3) })).map((e) => e.globalPosition)).toEqual(positions.slice(0, 4));
      expect((await log().readAll({ from: p(1), to: p(4) })).map((e) => e.globalPosition)).toEqual(positions.slice(1, 5));
      expect((await log().readAll({ from: p(1), limit: 2 })).map((e) => e.globalPosition)).toEqual(positions.slice(1, 3));
      expect((await log().readAll({ from: p(2), to: p(2) })).map((e) => e.globalPosition)).toEqual([p(2)]);
      expect(await log().readAll({ from: p(5) + 1n })).toEqual([]);
      expect(await log().readAll({ limit: 100 })).toEqual(all);
    });

    it('reads the log as it was at a position, whatever was appended after', async () => {
      await log().append('memory-a', memoryEvents('a', 2));
      const head = await log().headPosition();
      const before = await log().readAll({ to: head });
      await log().append('memory-a', memoryEvents('a', 2));
      await log().append('memory-b', memoryEvents('b', 1));
      expect(await log().readAll({ to: head })).toEqual(before);
      expect(await log().readAll()).toHaveLength(5);
    });

    it('reads back from the head, or from before a position, in position order', async () => {
      await log().append('memory-a', memoryEvents('a', 3));
      await log().append('memory-b', memoryEvents('b', 3));
      const all = await log().readAll();
      expect(await log().readBackward({ limit: 2 })).toEqual(all.slice(4));
      expect(await log().readBackward({ before: all[3]!.globalPosition, limit: 2 })).toEqual(all.slice(1, 3));
      expect(await log().readBackward({ before: all[0]!.globalPosition })).toEqual([]);
      expect(await log().readBackward()).toEqual(all);
    });

    it('pages through more than one page with from = last position + 1', async () => {
      for (let i = 0; i < 5; i += 1) await log().append(`memory-${i}`, memoryEvents(`${i}`, 3));
      const pages: RecordedEvent[][] = [];
      let from = 1n;
      for (let guard = 0; guard < 10; guard += 1) {
        const page = await log().readAll({ from, limit: 4 });
        if (page.length === 0) break;
        pages.push(page);
        from = page[page.length - 1]!.globalPosition + 1n;
      }
      expect(pages.map((page) => page.length)).toEqual([4, 4, 4, 3]);
      expect(pages.flat()).toEqual(await log().readAll());
    });
  });
}
