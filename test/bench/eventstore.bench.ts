/**
 * The EventStoreDB rows of `npm run bench` (ADR 27), against the TEST STAND-IN on 127.0.0.1, or a
 * real server with EVENTSTORE_URL (then the figures mean something about EventStoreDB itself):
 * appends of the same events through EventStoreDbEventLog (validation, sealing, stream chain,
 * expected revision) beside the client's raw `appendToStream`, and a new node's catch-up (engine
 * open on an empty data dir: every read model built from the log) beside a raw read of
 * `$all` by the client.
 *
 *   node dist/test/bench/eventstore.bench.js [--json] [--esdb-memories=N]   (default 500)
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { jsonEvent, NO_STREAM, START } from '@eventstore/db-client';
import { connectEventStore } from '../../src/events/log/eventstore-client.js';
import { openEventStoreDbEventLog } from '../../src/events/log/eventstore-event-log.js';
import { streams } from '../../src/events/streams.js';
import { startEventStoreStandIn } from '../support/esdb-stand-in/server.js';
import { openEventStoreEngine } from '../support/eventstore-engine.js';
import { corpusEvents, derivedAtoms } from './log-events.js';
import { reportWhenEntryPoint, row, type BenchReport, type BenchRow } from './report.js';
import { benchDir, intArg, progress, rates, timed } from './support.js';

export async function runEventStoreBench(options: { memories?: number } = {}): Promise<BenchReport> {
  const memories = options.memories ?? intArg('esdb-memories', 500);
  const standIn = process.env.EVENTSTORE_URL ? null : await startEventStoreStandIn();
  const url = process.env.EVENTSTORE_URL ?? (standIn?.url as string);
  const namespace = `bench_${randomUUID().slice(0, 8)}`;
  const groups = corpusEvents(0, memories, derivedAtoms());
  const events = groups.reduce((n, g) => n + g.length, 0);
  const rows: BenchRow[] = [];
  const client = connectEventStore(url);
  const log = await openEventStoreDbEventLog({ connectionString: url, namespace });
  const dir = benchDir('lmem-bench-esdb-');
  try {
    progress(`eventstoredb: ${memories} memories (${events} events) through the client, raw`);
    const raw = await timed(async () => {
      for (const [i, group] of groups.entries()) {
        const records = group.map((e) => jsonEvent({ type: e.type, data: e.data as Record<string, unknown>, metadata: e.metadata }));
        await client.appendToStream(`${namespace}_raw:memory-${i}`, records, { expectedRevision: NO_STREAM });
      }
    });
    progress('eventstoredb: the same through EventStoreDbEventLog');
    const ours = await timed(async () => {
      for (const group of groups) {
        const first = group[0] as (typeof group)[number] & { data: { memoryId: string } };
        await log.append(streams.memory(first.data.memoryId), group, { expectedRevision: 'no_stream' });
      }
    });
    rows.push(row('appends, one memory a call (events/s)', rates(events, ours).wall, rates(events, raw).wall, 'events/s', undefined, {
      note: 'adapter: validation, a sealed box per event, the stream chain, key streams; raw: appendToStream of the same events as plain JSON',
    }));

    progress('eventstoredb: a raw read of all of $all');
    let read = 0;
    const rawRead = await timed(async () => {
      for await (const _ of client.readAll({ fromPosition: START, maxCount: Number.MAX_SAFE_INTEGER })) read += 1;
    });
    progress('eventstoredb: a new node builds its read models from the log');
    const catchUp = await timed(async () => {
      const engine = await openEventStoreEngine(dir.dir, url, namespace, { follow: false });
      await engine.close();
    });
    rows.push(row('new node catch-up (events/s)', rates(events, catchUp).wall, rates(read, rawRead).wall, 'events/s', undefined, {
      note: 'engine open on an empty data dir (every read model and both vector indexes built, texts embedded) vs the client reading every record of $all (raw and key streams too), per record',
    }));
  } finally {
    await log.close();
    await client.dispose();
    await standIn?.stop();
    dir.remove();
  }
  return {
    title: `EventStoreDB log (${process.env.EVENTSTORE_URL ? 'real server' : 'test stand-in'})`,
    meta: { memories, events, loadAverage: (loadavg()[0] ?? 0).toFixed(2) },
    rows,
  };
}

reportWhenEntryPoint(import.meta.url, runEventStoreBench);
