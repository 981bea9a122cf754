import { firstValueFrom, take, timeout, toArray } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { engineProjections } from '../src/engine/indexes.js';
import type { EventStoreDbEventLog } from '../src/events/log/eventstore-event-log.js';
import { verifyStore } from '../src/replay/verify.js';
import { tempDir } from './support/engine.js';
import { openEventStoreEngine } from './support/eventstore-engine.js';
import { eventStoreUnderTest, type EventStoreUnderTest } from './support/eventstore-log.js';
import { memoryEvents } from './support/events.js';

// Tampering needs the TEST STAND-IN's storage (a real server's files are not ours to edit).
describe('the hash chains of an EventStoreDB log (test stand-in)', () => {
  let target: EventStoreUnderTest;
  let log: EventStoreDbEventLog;
  beforeEach(async () => {
    target = await eventStoreUnderTest({ systemNoiseEvery: 3, realServer: false });
    log = await target.open();
  });
  afterEach(async () => {
    await target.cleanup();
  });
  const standIn = () => {
    if (!target.standIn) throw new Error('needs the stand-in');
    return target.standIn;
  };
  const fill = async () => {
    for (let i = 0; i < 4; i += 1) await log.append(`memory-m${i}`, memoryEvents(`m${i}`, 3));
    return log.readAll();
  };

  it('verifies every stream and reports the head digest; an anchor from a report holds', async () => {
    const all = await fill();
    const report = await log.verifyChain();
    expect(report).toMatchObject({ ok: true, checked: BigInt(all.length), headPosition: all.at(-1)?.globalPosition, firstBreak: null });
    expect(report.headHash).toMatch(/^[0-9a-f]{64}$/);
    await log.append('memory-m9', memoryEvents('m9', 2));
    expect(await log.verifyChain({ anchor: { position: report.headPosition, hash: report.headHash } })).toMatchObject({ ok: true });
    const wrong = await log.verifyChain({ anchor: { position: report.headPosition, hash: '0'.repeat(64) } });
    expect(wrong.firstBreak).toMatchObject({ position: report.headPosition, kind: 'anchor-mismatch' });
  });

  it('names the position of a changed byte', async () => {
    const all = await fill();
    const victim = all[5]!;
    const record = standIn().store.recordAt(victim.globalPosition)!;
    const text = Buffer.from(record.data).toString('utf8');
    record.data = new Uint8Array(Buffer.from(text.replace('"importance":0.5', '"importance":0.6'), 'utf8'));
    const report = await log.verifyChain();
    expect(report.firstBreak).toMatchObject({ position: victim.globalPosition, kind: 'hash-mismatch' });
    expect(report.checked).toBe(5n);
  });

  it('names a stream that lost an event, and an anchor past which a whole stream was removed', async () => {
    const all = await fill();
    const anchor = await log.anchor();
    expect(anchor).toMatchObject({ position: all.at(-1)!.globalPosition, events: all.length });
    expect((await log.verifyChain()).ok).toBe(true);
    // A whole stream gone: every other stream still chains, the anchor's digest no longer matches.
    for (const e of all.filter((x) => x.streamId === 'memory-m1')) standIn().store.dropRecord(e.globalPosition);
    expect((await log.verifyChain()).firstBreak).toMatchObject({ position: anchor.position, kind: 'anchor-mismatch' });
    // One event out of the middle of a stream.
    standIn().store.dropRecord(all[7]!.globalPosition);
    expect((await log.verifyChain()).firstBreak).toMatchObject({ position: all[8]!.globalPosition, kind: 'missing' });
  });

  it('lmem verify: the chain and a fresh replay of every projection agree on an engine node', async () => {
    const dir = tempDir();
    const engine = await openEventStoreEngine(dir.dir, target.url, target.namespace);
    try {
      await engine.writeMemory({ text: 'Alice likes tea', userId: 'alice', sessionId: 's1' });
      await engine.writeMemory({ text: 'Bob went to Osaka', sessionId: 's1' });
      const report = await verifyStore({
        log: engine.log, runner: engine.runner, projections: engineProjections, vectors: [engine.indexes.vectors, engine.indexes.graphVectors],
      });
      expect(report.ok).toBe(true);
      expect(report.chain.checked).toBeGreaterThan(2n);
    } finally {
      await engine.close();
      dir.remove();
    }
  });

  it('a subscription resumes where it was after the server went away and came back', async () => {
    await log.append('memory-a', memoryEvents('a', 2));
    const received = firstValueFrom(log.subscribe().pipe(take(5), toArray(), timeout(20_000)));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await standIn().stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await standIn().restart();
    const writer = await target.open();
    await writer.append('memory-b', memoryEvents('b', 3));
    const events = await received;
    expect(events.map((e) => e.metadata.eventId)).toEqual((await writer.readAll()).map((e) => e.metadata.eventId));
  });
});
