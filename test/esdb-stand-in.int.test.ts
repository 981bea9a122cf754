import {
  ANY,
  END,
  EventStoreDBClient,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
  eventTypeFilter,
  jsonEvent,
  streamNameFilter,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEventStoreStandIn, type EventStoreStandIn } from './support/esdb-stand-in/server.js';

// What the TEST STAND-IN must do for the real client, checked through the client itself over gRPC.
// Each expectation is the behaviour of an EventStoreDB server on the path (ADR 27 gives sources).

const collect = async (stream: AsyncIterable<ResolvedEvent>): Promise<ResolvedEvent[]> => {
  const out: ResolvedEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
};
const event = (n: number) => jsonEvent({ type: 'Tested', data: { n }, metadata: { m: n } });

for (const batchAppend of [true, false]) {
  describe(`EventStoreDB test stand-in through @eventstore/db-client (${batchAppend ? 'BatchAppend' : 'Append'})`, () => {
    let standIn: EventStoreStandIn;
    let client: EventStoreDBClient;
    beforeEach(async () => {
      standIn = await startEventStoreStandIn({ batchAppend });
      client = EventStoreDBClient.connectionString(standIn.url);
    });
    afterEach(async () => {
      await client.dispose();
      await standIn.stop();
    });

    it('appends with each expected revision and maps a conflict to WrongExpectedVersionError', async () => {
      const first = await client.appendToStream('s', [event(1), event(2)], { expectedRevision: NO_STREAM });
      expect(first.nextExpectedRevision).toBe(1n);
      expect(first.position?.commit).toBe(first.position?.prepare);
      await expect(client.appendToStream('s', event(3), { expectedRevision: NO_STREAM })).rejects.toBeInstanceOf(WrongExpectedVersionError);
      await expect(client.appendToStream('s', event(3), { expectedRevision: 0n })).rejects.toMatchObject({
        streamName: 's', expectedVersion: 0n, actualVersion: 1n,
      });
      await expect(client.appendToStream('t', event(3), { expectedRevision: STREAM_EXISTS })).rejects.toMatchObject({
        expectedVersion: 'stream_exists', actualVersion: 'no_stream',
      });
      expect((await client.appendToStream('s', event(3), { expectedRevision: 1n })).nextExpectedRevision).toBe(2n);
      expect((await client.appendToStream('s', event(4), { expectedRevision: ANY })).nextExpectedRevision).toBe(3n);
    });

    it('reads a stream forwards and backwards, and reports a missing one', async () => {
      await client.appendToStream('s', [event(1), event(2), event(3)]);
      const forwards = await collect(client.readStream('s', { fromRevision: 1n }));
      expect(forwards.map((e) => e.event?.data)).toEqual([{ n: 2 }, { n: 3 }]);
      expect(forwards.map((e) => e.event?.metadata)).toEqual([{ m: 2 }, { m: 3 }]);
      const backwards = await collect(client.readStream('s', { direction: 'backwards', fromRevision: END, maxCount: 1 }));
      expect(backwards.map((e) => e.event?.revision)).toEqual([2n]);
      await expect(collect(client.readStream('nothing'))).rejects.toBeInstanceOf(StreamNotFoundError);
    });

    it('gives every event of $all its own increasing commit position with gaps, system events included', async () => {
      await client.appendToStream('a', [event(1), event(2)]);
      await client.appendToStream('b', [event(3)]);
      const all = await collect(client.readAll());
      const positions = all.map((e) => e.event?.position?.commit ?? -1n);
      expect([...positions].sort((x, y) => (x < y ? -1 : 1))).toEqual(positions);
      expect(new Set(positions).size).toBe(positions.length);
      expect(all.some((e) => e.event?.streamId.startsWith('$'))).toBe(true);
      const mine = all.filter((e) => e.event?.type === 'Tested');
      expect(mine.map((e) => e.event?.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      expect((mine[1]?.event?.position?.commit ?? 0n) - (mine[0]?.event?.position?.commit ?? 0n)).toBeGreaterThan(1n);
      const from = mine[1]?.event?.position;
      const tail = await collect(client.readAll({ fromPosition: from ?? START, maxCount: 5 }));
      expect(tail[0]?.event?.position).toEqual(from);
      const back = await collect(client.readAll({ direction: 'backwards', fromPosition: END, maxCount: 1 }));
      expect(back[0]?.event?.data).toEqual({ n: 3 });
    });

    it('refuses a read of $all from a position inside a record, as the server does', async () => {
      await client.appendToStream('a', [event(1)]);
      const [e] = (await collect(client.readAll())).filter((r) => r.event?.type === 'Tested');
      const inside = (e?.event?.position?.commit ?? 0n) + 1n;
      await expect(collect(client.readAll({ fromPosition: { commit: inside, prepare: inside } }))).rejects.toThrow(/invalid position/);
    });

    it('tombstones a stream: reads and appends then fail with StreamDeletedError', async () => {
      await client.appendToStream('k', [event(1)]);
      await client.tombstoneStream('k');
      await expect(collect(client.readStream('k'))).rejects.toBeInstanceOf(StreamDeletedError);
      await expect(client.appendToStream('k', event(2))).rejects.toBeInstanceOf(StreamDeletedError);
      const bytes = () => Buffer.concat(standIn.store.records().map((r) => Buffer.from(r.data)));
      expect(bytes().includes(Buffer.from('{"n":1}'))).toBe(true);
      standIn.store.scavenge();
      expect(bytes().includes(Buffer.from('{"n":1}'))).toBe(false);
    });

    it('soft-deletes a stream: it reads as not found', async () => {
      await client.appendToStream('d', [event(1)]);
      await client.deleteStream('d', { expectedRevision: 0n });
      await expect(collect(client.readStream('d'))).rejects.toBeInstanceOf(StreamNotFoundError);
    });

    it('subscribes to $all: confirmation, stored events after the start position, caught up, then live ones', async () => {
      await client.appendToStream('a', [event(1), event(2)]);
      const stored = (await collect(client.readAll())).filter((e) => e.event?.type === 'Tested');
      const seen: unknown[] = [];
      const subscription = client.subscribeToAll({ fromPosition: stored[0]?.event?.position ?? START, filter: eventTypeFilter({ prefixes: ['Tested'] }) });
      const caughtUp = new Promise<void>((resolve) => subscription.on('caughtUp', () => resolve()));
      const done = (async () => {
        for await (const e of subscription) {
          seen.push(e.event?.data);
          if (seen.length === 2) break;
        }
      })();
      await caughtUp;
      expect(seen).toEqual([{ n: 2 }]);
      await client.appendToStream('b', [event(3)]);
      await done;
      expect(seen).toEqual([{ n: 2 }, { n: 3 }]);
    });

    it('filters a subscription by stream name and sends checkpoints', async () => {
      const checkpoints: bigint[] = [];
      const subscription = client.subscribeToAll({
        fromPosition: START,
        filter: streamNameFilter({ prefixes: ['keep-'], maxSearchWindow: 1, checkpointInterval: 1, checkpointReached: (_s, p) => void checkpoints.push(p.commit) }),
      });
      const seen: string[] = [];
      const done = (async () => {
        for await (const e of subscription) {
          seen.push(e.event?.streamId ?? '');
          if (seen.length === 2) break;
        }
      })();
      await client.appendToStream('skip-1', [event(1)]);
      await client.appendToStream('keep-1', [event(2)]);
      await client.appendToStream('keep-2', [event(3)]);
      await done;
      expect(seen).toEqual(['keep-1', 'keep-2']);
      expect(checkpoints.length).toBeGreaterThan(0);
    });
  });
}
