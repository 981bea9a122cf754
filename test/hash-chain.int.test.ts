import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chainHash, genesisHash, type ChainRow } from '../src/events/log/hash-chain.js';
import { openDatabase } from '../src/events/log/sqlite-database.js';
import { createSqliteEventLog } from '../src/events/log/sqlite-event-log.js';
import { chainColumns } from '../src/events/log/sqlite-chain-schema.js';
import { startRacers } from './support/append-race.js';
import { memoryEvents, memoryWrittenEvent } from './support/events.js';
import { openTestStore, type TestStore } from './support/store.js';

describe('the hash chain of the SQLite log', () => {
  let store: TestStore;
  beforeEach(async () => {
    store = openTestStore([]);
    // Six events over three streams: positions 1-2 (a), 3-4 (b), 5 (a), 6 (c).
    await store.log.append('memory-a', memoryEvents('a', 2));
    await store.log.append('memory-b', memoryEvents('b', 2));
    await store.log.append('memory-a', memoryEvents('a', 1));
    await store.log.append('memory-c', memoryEvents('c', 1));
  });
  afterEach(() => store.close());

  const links = (): string[] =>
    (store.db.prepare('SELECT hash FROM events ORDER BY global_position').all() as { hash: string }[]).map((r) => r.hash);
  const rows = (): ChainRow[] => store.db.prepare(`SELECT ${chainColumns} FROM events ORDER BY global_position`).all() as ChainRow[];
  /** What an attacker with write access does: recompute every link from `from` on, so the chain holds again. */
  const relink = (from: number): void => {
    let previous = links()[from - 2] ?? genesisHash;
    for (const row of rows().filter((r) => r.globalPosition >= from)) {
      previous = chainHash(previous, row);
      store.db.prepare('UPDATE events SET hash = ? WHERE global_position = ?').run(previous, row.globalPosition);
    }
  };

  it('links every row from the genesis link, across chunks and connections', async () => {
    const otherDb = openDatabase(store.path);
    await createSqliteEventLog(otherDb).append('memory-d', memoryEvents('d', 120));
    otherDb.close();
    await store.log.append('memory-e', memoryEvents('e', 3));
    const report = await store.log.verifyChain({ pageSize: 16 });
    expect(report).toMatchObject({ ok: true, checked: 129n, headPosition: 129n, firstBreak: null });
    expect(report.headHash).toBe(links().at(-1));
    const stored = rows();
    // The documented format, spelled out once so an outside verifier can follow it.
    const first = stored[0] as ChainRow;
    const fields = [first.globalPosition, first.streamId, first.streamRevision, first.eventId, first.type, first.schemaVersion, first.data, first.metadata];
    const text = '0'.repeat(64) + fields.map((f) => `${String(f).length}:${String(f)}`).join('');
    expect(links()[0]).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
    expect(links()[128]).toEqual(chainHash(links()[127] as string, stored[128] as ChainRow));
  });

  const tamperings: [string, string, string][] = [
    ['one character of the data', `UPDATE events SET data = replace(data, '"importance":0.5', '"importance":0.6') WHERE global_position = 3`, 'hash-mismatch'],
    ['the metadata', `UPDATE events SET metadata = json_set(metadata, '$.actor', 'mallory') WHERE global_position = 3`, 'hash-mismatch'],
    ['the stream id', `UPDATE events SET stream_id = 'memory-z' WHERE global_position = 3`, 'hash-mismatch'],
    ['the event id column', `UPDATE events SET event_id = 'forged' WHERE global_position = 3`, 'hash-mismatch'],
    ['the schema version', `UPDATE events SET schema_version = 1 WHERE global_position = 3`, 'hash-mismatch'],
    ['the stored link itself', `UPDATE events SET hash = (SELECT hash FROM events WHERE global_position = 2) WHERE global_position = 3`, 'hash-mismatch'],
    ['the row, deleted', `DELETE FROM events WHERE global_position = 3`, 'missing'],
  ];

  it.each(tamperings)('finds %s changed at position 3, and nothing before it', async (_, sql, kind) => {
    store.db.exec(sql);
    const report = await store.log.verifyChain({ pageSize: 2 });
    expect(report).toMatchObject({ ok: false, checked: 2n, firstBreak: { position: 3n, kind } });
  });

  it('finds events removed from the end of the log through the streams table', async () => {
    store.db.exec('DELETE FROM events WHERE global_position = 6');
    const report = await store.log.verifyChain();
    expect(report).toMatchObject({ ok: false, checked: 5n, firstBreak: { position: 6n, kind: 'missing' } });
    expect(report.firstBreak?.detail).toMatch(/stream memory-c/);
  });

  it('reports a row that hashes right but is no event as unparsable', async () => {
    store.db.exec(`UPDATE events SET type = 'MemoryExploded' WHERE global_position = 4`);
    relink(4);
    expect(await store.log.verifyChain()).toMatchObject({ ok: false, checked: 3n, firstBreak: { position: 4n, kind: 'unparsable' } });
  });

  it('misses a chain rewritten from the tampered row on, unless a head exported earlier anchors it', async () => {
    const before = await store.log.verifyChain();
    const anchor = { position: before.headPosition, hash: before.headHash };
    expect(await store.log.verifyChain({ anchor })).toMatchObject({ ok: true });
    store.db.exec(`UPDATE events SET data = replace(data, '"importance":0.5', '"importance":0.6') WHERE global_position = 3`);
    relink(3);
    expect(await store.log.verifyChain()).toMatchObject({ ok: true });
    expect(await store.log.verifyChain({ anchor })).toMatchObject({ ok: false, firstBreak: { position: 6n, kind: 'anchor-mismatch' } });
    const beyond = { position: 9n, hash: before.headHash };
    expect(await store.log.verifyChain({ anchor: beyond })).toMatchObject({ ok: false, firstBreak: { position: 7n, kind: 'missing' } });
  });

  it('gives a file written before the chain existed its links on open, the same ones appends make', async () => {
    const expected = links();
    store.db.exec('ALTER TABLE events DROP COLUMN hash');
    const db = openDatabase(store.path);
    const reopened = createSqliteEventLog(db);
    expect(links()).toEqual(expected);
    await reopened.append('memory-a', memoryEvents('a', 2));
    expect(await reopened.verifyChain()).toMatchObject({ ok: true, checked: 8n });
    db.close();
  });

  it('two processes appending to their own streams at the same moment keep one chain', async () => {
    const racers = await startRacers(store.path, store.dir, 2);
    const rounds = 10;
    try {
      for (let round = 0; round < rounds; round += 1) {
        const streams = [0, 1].map((racer) => `memory-fork-${round}-${racer}`);
        const batches = [0, 1].map((racer) => [0, 1, 2].map((i) => memoryWrittenEvent(`f${round}`, `racer ${racer} event ${i}`)));
        const results = await racers.race(round, streams, batches);
        expect(results.every((r) => r.ok), JSON.stringify(results)).toBe(true);
      }
    } finally {
      await racers.stop();
    }
    expect(await store.log.verifyChain()).toMatchObject({ ok: true, checked: BigInt(6 + rounds * 6) });
  });
});
