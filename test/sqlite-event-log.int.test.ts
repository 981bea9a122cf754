import Database from 'better-sqlite3';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom, take, timeout, toArray } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConcurrencyError, CorruptEventError, ValidationError } from '../src/events/errors.js';
import { openDatabase, type SqliteDatabase } from '../src/events/log/sqlite-database.js';
import { createSqliteEventLog, type SqliteEventLog } from '../src/events/log/sqlite-event-log.js';
import { startRacers } from './support/append-race.js';
import { eventLogContract } from './support/event-log-contract.js';
import { raceOnce } from './support/event-log-contract-revisions.js';
import { snapshot } from './support/event-log-contract-shared.js';
import { arbitraryMemoryEvent, memoryEvents, memoryWrittenEvent, testEventMetadata } from './support/events.js';

interface FileLog {
  readonly dir: string;
  readonly path: string;
  readonly db: SqliteDatabase;
  readonly log: SqliteEventLog;
  /** Another connection to the same file, with its own log. */
  connect(): { db: SqliteDatabase; log: SqliteEventLog };
  cleanup(): Promise<void>;
}

/** A real SQLite file in a fresh temporary folder. */
function openFileLog(): FileLog {
  const dir = mkdtempSync(join(tmpdir(), 'lmem-log-'));
  const path = join(dir, 'log.db');
  const connections: { db: SqliteDatabase; log: SqliteEventLog }[] = [];
  const connect = () => {
    const db = openDatabase(path, { synchronous: 'NORMAL' });
    const connection = { db, log: createSqliteEventLog(db, { pollIntervalMs: 20 }) };
    connections.push(connection);
    return connection;
  };
  const { db, log } = connect();
  return {
    dir,
    path,
    db,
    log,
    connect,
    async cleanup() {
      for (const c of connections) {
        await c.log.close();
        c.db.close();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

eventLogContract('sqlite', async () => openFileLog());

describe('SQLite event log', () => {
  let store: FileLog;
  beforeEach(() => {
    store = openFileLog();
  });
  afterEach(async () => {
    await store.cleanup();
  });
  /** Raw SQL on the file through its own better-sqlite3 connection, as an outside writer would. */
  const raw = (sql: string, ...params: unknown[]) => {
    const db = new Database(store.path);
    try {
      db.prepare(sql).run(...params);
    } finally {
      db.close();
    }
  };

  it('two connections to one file racing with the same expected revision: exactly one wins (property)', async () => {
    const other = store.connect();
    const batch = fc.array(arbitraryMemoryEvent, { minLength: 1, maxLength: 5 });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 3 }), batch, batch, async (existing, a, b) => {
        run += 1;
        await raceOnce(store.log, `race-${run}`, existing, a, b, other.log);
        expect(await other.log.readStream(`race-${run}`)).toEqual(await store.log.readStream(`race-${run}`));
      }),
      { numRuns: 100 },
    );
  });

  it('a subscriber on one connection receives what another connection appends', async () => {
    const other = store.connect();
    const received = firstValueFrom(other.log.subscribe().pipe(take(3), toArray(), timeout(5000)));
    const events = memoryEvents('m1', 3);
    await store.log.append('memory-m1', events);
    expect((await received).map((e) => e.metadata.eventId)).toEqual(events.map((e) => e.metadata.eventId));
  });

  it('two processes appending to a new stream at the same moment: exactly one wins each round', async () => {
    const racers = await startRacers(store.path, store.dir, 2);
    const rounds = 20;
    const winners: string[] = [];
    const spreads: number[] = [];
    try {
      for (let round = 0; round < rounds; round += 1) {
        const batches = [0, 1].map((racer) => [memoryWrittenEvent(`r${round}`, `racer ${racer}`, { metadata: { eventId: `round-${round}-racer-${racer}` } })]);
        const results = await racers.race(round, `memory-race-${round}`, batches);
        expect(results.filter((r) => r.ok), JSON.stringify(results)).toHaveLength(1);
        expect(results.find((r) => !r.ok)?.errorName, JSON.stringify(results)).toBe('ConcurrencyError');
        winners.push(`round-${round}-racer-${results.findIndex((r) => r.ok)}`);
        spreads.push(Math.abs((results[0]?.startedAt ?? 0) - (results[1]?.startedAt ?? 0)));
      }
    } finally {
      await racers.stop();
    }
    const all = await store.log.readAll();
    expect(all.map((e) => e.metadata.eventId)).toEqual(winners);
    expect(all.map((e) => e.streamId)).toEqual(winners.map((_, round) => `memory-race-${round}`));
    expect(all.map((e) => e.globalPosition)).toEqual(winners.map((_, i) => BigInt(i + 1)));
    expect(await store.log.headPosition()).toBe(BigInt(rounds));
    expect(await store.log.verifyChain()).toMatchObject({ ok: true, checked: BigInt(rounds) });
    spreads.sort((x, y) => x - y);
    console.info(`cross-process race: median start spread ${spreads[rounds >> 1]?.toFixed(3)} ms, max ${spreads.at(-1)?.toFixed(3)} ms`);
  });

  describe('a corrupt stored row', () => {
    const corruptions: [string, string][] = [
      ['truncated JSON data', `UPDATE events SET data = '{"memoryId":' WHERE global_position = 3`],
      ['well-formed JSON with importance 7', `UPDATE events SET data = json_set(data, '$.importance', 7) WHERE global_position = 3`],
      ['an old shape with importance 7', `UPDATE events SET schema_version = 1, data = '{"memoryId":"b","content":"c","importance":7,"sessionId":null,"personaId":null,"tags":[]}' WHERE global_position = 3`],
      ['metadata without an id', `UPDATE events SET metadata = '{}' WHERE global_position = 3`],
      ['an unknown event type', `UPDATE events SET type = 'MemoryExploded' WHERE global_position = 3`],
      ['a schema version newer than this build', `UPDATE events SET schema_version = 3 WHERE global_position = 3`],
    ];

    it.each(corruptions)('(%s) makes reads through it fail with its position, and only those', async (_, sql) => {
      await store.log.append('memory-a', memoryEvents('a', 2));
      // One append each: events of one append under the same keys share a sealed box, and a corrupt
      // member fails its whole group (test/sealing-groups.int.test.ts); here each row stands alone.
      for (const event of memoryEvents('b', 2)) await store.log.append('memory-b', [event]);
      await store.log.append('memory-a', memoryEvents('a', 1));
      expect(await store.log.readAll()).toHaveLength(5);
      raw(sql);
      for (const read of [() => store.log.readAll(), () => store.log.readStream('memory-b'), () => store.log.readAll({ from: 3n, to: 3n })]) {
        await expect(read()).rejects.toBeInstanceOf(CorruptEventError);
        await expect(read()).rejects.toMatchObject({ position: 3n, message: expect.stringMatching(/position 3\b/) });
      }
      const subscribed = firstValueFrom(store.log.subscribe().pipe(take(5), toArray(), timeout(5000)));
      await expect(subscribed).rejects.toBeInstanceOf(CorruptEventError);
      expect(await store.log.readAll({ to: 2n })).toHaveLength(2);
      expect(await store.log.readAll({ from: 4n })).toHaveLength(2);
      expect(await store.log.readStream('memory-a')).toHaveLength(3);
      expect(await store.log.readStream('memory-b', { fromRevision: 1n })).toHaveLength(1);
    });
  });

  it('refuses a duplicate event id, in another batch or the same one, and changes nothing', async () => {
    const first = memoryWrittenEvent('m1', 'first');
    await store.log.append('memory-m1', [first]);
    const before = await snapshot(store.log, 'memory-m2');
    const dupOfStored = memoryWrittenEvent('m2', 'again', { metadata: { eventId: first.metadata.eventId } });
    const attempts = [
      store.log.append('memory-m2', [memoryWrittenEvent('m2', 'fresh'), dupOfStored]),
      store.log.append('memory-m1', [memoryWrittenEvent('m1', 'again', { metadata: { eventId: first.metadata.eventId } })]),
      store.log.append('memory-m2', [memoryWrittenEvent('m2', 'x', { metadata: { eventId: 'twice' } }), memoryWrittenEvent('m2', 'y', { metadata: { eventId: 'twice' } })]),
    ];
    for (const attempt of attempts) {
      await expect(attempt).rejects.toBeInstanceOf(ValidationError);
      await expect(attempt).rejects.toMatchObject({ field: 'metadata.eventId' });
    }
    expect(await snapshot(store.log, 'memory-m2')).toEqual(before);
    expect(await store.log.readStream('memory-m1')).toHaveLength(1);
    // The stream was not created and no position was used up.
    const next = await store.log.append('memory-m2', memoryEvents('m2', 1), { expectedRevision: 'no_stream' });
    expect(next).toEqual({ nextExpectedRevision: 0n, lastPosition: 2n });
  });

  it('reads an old stored MemoryWritten (v1) as the current shape, and appends after it', async () => {
    const metadata = testEventMetadata();
    const v1 = { memoryId: 'old', content: '南京市长江大桥', importance: 0.25, sessionId: 's1', personaId: null, tags: ['bridge', 'city'] };
    raw(
      `INSERT INTO events (stream_id, stream_revision, event_id, type, schema_version, data, metadata)
       VALUES ('memory-old', 0, ?, 'MemoryWritten', 1, ?, ?)`,
      metadata.eventId,
      JSON.stringify(v1),
      JSON.stringify(metadata),
    );
    raw(`INSERT INTO streams (stream_id, revision) VALUES ('memory-old', 0)`);
    const expected = {
      type: 'MemoryWritten',
      schemaVersion: 2,
      data: {
        memoryId: 'old', text: '南京市长江大桥', importance: 0.25, sessionId: 's1', personaId: null, userId: null,
        topics: ['bridge', 'city'], keyFacts: [], participants: [], sentiment: null, sources: [],
      },
      metadata,
      streamId: 'memory-old',
      streamRevision: 0n,
      globalPosition: 1n,
    };
    expect(await store.log.readStream('memory-old')).toEqual([expected]);
    expect(await store.log.readAll()).toEqual([expected]);
    await expect(store.log.append('memory-old', memoryEvents('old', 1), { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(ConcurrencyError);
    const result = await store.log.append('memory-old', memoryEvents('old', 1), { expectedRevision: 0n });
    expect(result).toEqual({ nextExpectedRevision: 1n, lastPosition: 2n });
    const stored = store.db.prepare('SELECT schema_version AS v FROM events WHERE global_position = 1').get() as { v: number };
    expect(stored.v).toBe(1);
  });

  it('numbers positions 1, 2, 3 ... with no gap left by refused appends', async () => {
    await store.log.append('s', memoryEvents('s', 2));
    await expect(store.log.append('s', memoryEvents('s', 3), { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(ConcurrencyError);
    await expect(store.log.append('s', [memoryWrittenEvent('s', 'x', { importance: 2 })])).rejects.toBeInstanceOf(ValidationError);
    await store.log.append('t', memoryEvents('t', 2));
    expect((await store.log.readAll()).map((e) => e.globalPosition)).toEqual([1n, 2n, 3n, 4n]);
  });
});
