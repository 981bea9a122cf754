import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../src/engine/engine.js';
import { tempDir } from './support/engine.js';
import { engineDigests, eventually, openEventStoreEngine } from './support/eventstore-engine.js';
import { eventStoreTarget, eventStoreUnderTest, type EventStoreUnderTest } from './support/eventstore-log.js';

// Nodes of one shared log: engines on their own folders, their log in EventStoreDB (the TEST
// STAND-IN here, or a real server with EVENTSTORE_URL), through the real client over gRPC.
describe(`engines sharing an EventStoreDB log (${eventStoreTarget})`, () => {
  let target: EventStoreUnderTest;
  const dirs: ReturnType<typeof tempDir>[] = [];
  const engines: MemoryEngine[] = [];
  const node = async (options: Parameters<typeof openEventStoreEngine>[3] = {}, dir = tempDir()) => {
    if (!dirs.includes(dir)) dirs.push(dir);
    const engine = await openEventStoreEngine(dir.dir, target.url, target.namespace, options);
    engines.push(engine);
    return { engine, dir };
  };
  const close = async (engine: MemoryEngine) => {
    engines.splice(engines.indexOf(engine), 1);
    await engine.close();
  };
  beforeEach(async () => {
    target = await eventStoreUnderTest();
  });
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.close();
    for (const dir of dirs.splice(0)) dir.remove();
    await target.cleanup();
  });

  it('a write on one node is read on the other, caught up by its subscription; both have the same read models', async () => {
    const a = (await node()).engine;
    const b = (await node()).engine;
    const written = await a.writeMemory({ text: 'Alice likes green tea', sessionId: 's1', userId: 'alice' });
    expect(written.readModelsBehind).toBeUndefined();
    expect(a.documents.get(written.memoryId)?.text).toBe('Alice likes green tea');
    await eventually(() => b.documents.get(written.memoryId) !== undefined);
    const back = await b.writeMemory({ text: 'Bob plays the violin in Osaka', sessionId: 's1' });
    await eventually(() => a.documents.get(back.memoryId) !== undefined);
    await Promise.all([a.settled(), b.settled()]);
    expect(await engineDigests(b)).toEqual(await engineDigests(a));
    const found = await b.recall({ query: 'green tea', scope: { mode: 'global' }, topK: 3 });
    expect(found.memories.map((m) => m.memoryId)).toContain(written.memoryId);
    const status = await b.status();
    expect(status.log).toBe('eventstoredb');
    expect(status.projections.every((p) => p.lag?.events === 0)).toBe(true);
  });

  it('status shows how far a node that does not follow is behind, in events and milliseconds', async () => {
    const a = (await node()).engine;
    const b = (await node({ follow: false })).engine;
    for (const text of ['one memory', 'another memory', 'a third memory']) await a.writeMemory({ text });
    const behind = await b.status();
    const documents = behind.projections.find((p) => p.name === 'documents');
    expect(documents?.lag?.events).toBeGreaterThanOrEqual(3);
    expect(documents?.lag?.ms).toBeGreaterThanOrEqual(0);
    await b.indexes.catchUp();
    expect((await b.status()).projections.map((p) => p.lag?.events)).toEqual(behind.projections.map(() => 0));
  });

  it('a node closed and opened again resumes from its checkpoints and catches up what it missed', async () => {
    const a = (await node()).engine;
    const first = await node();
    await a.writeMemory({ text: 'before the restart' });
    await eventually(() => first.engine.documents.count() === 1);
    const generations = first.engine.runner.status().map((p) => p.generation);
    await close(first.engine);
    const missed = await a.writeMemory({ text: 'while it was away' });
    const again = (await node({}, first.dir)).engine;
    expect(again.documents.get(missed.memoryId)?.text).toBe('while it was away');
    expect(again.runner.status().map((p) => p.generation)).toEqual(generations);
    expect(await engineDigests(again)).toEqual(await engineDigests(a));
  });

  it('a new node builds its read models from the log, vectors included', async () => {
    const a = (await node()).engine;
    for (const text of ['Alice works at Acme', '南京市长江大桥的记忆', 'Bob drinks coffee with Alice']) await a.writeMemory({ text, userId: 'alice' });
    const fresh = (await node()).engine;
    expect(fresh.documents.count()).toBe(3);
    expect(fresh.indexes.vectors.status()).toMatchObject({ size: 3, pending: 0 });
    expect(await engineDigests(fresh)).toEqual(await engineDigests(a));
  });

  it('read-your-writes waits for a lagging replica, and says so when its timeout runs out first', async () => {
    await target.cleanup();
    target = await eventStoreUnderTest({ readLagMs: 300 });
    if (!target.standIn) return;
    const patient = (await node({ readYourWritesTimeoutMs: 5000 })).engine;
    const started = Date.now();
    const seen = await patient.writeMemory({ text: 'waited for' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(seen.readModelsBehind).toBeUndefined();
    expect(patient.documents.get(seen.memoryId)).toBeDefined();
    const hasty = (await node({ readYourWritesTimeoutMs: 20 })).engine;
    const behind = await hasty.writeMemory({ text: 'not waited for' });
    expect(behind.readModelsBehind).toBe(true);
    await eventually(() => hasty.documents.get(behind.memoryId) !== undefined);
  });

  it('an erasure on one node reaches the read models and the file of the other', async () => {
    const a = (await node()).engine;
    const { engine: b, dir } = await node();
    const marker = 'zqmarker7f3a';
    const erased = await a.writeMemory({ text: `Carol secret ${marker}`, userId: 'carol' });
    const kept = await a.writeMemory({ text: 'Dave keeps this', userId: 'dave' });
    await eventually(() => b.documents.get(erased.memoryId)?.text.includes(marker) === true);
    await a.eraseSubject({ kind: 'user', id: 'carol', reason: 'request' });
    await eventually(() => b.documents.get(erased.memoryId)?.text.includes(marker) === false);
    await b.settled();
    expect(b.documents.get(kept.memoryId)?.text).toBe('Dave keeps this');
    const file = join(dir.dir, 'livingmemory.db');
    const bytes = [file, `${file}-wal`].filter(existsSync).map((path) => readFileSync(path));
    expect(bytes.some((b) => b.includes(Buffer.from(marker)))).toBe(false);
    expect(await engineDigests(b)).toEqual(await engineDigests(a));
    const fresh = (await node()).engine;
    expect(fresh.documents.get(erased.memoryId)?.text.includes(marker)).toBe(false);
  });
});
