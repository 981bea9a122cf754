import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../src/events/catalog.js';
import { CorruptEventError } from '../src/events/errors.js';
import { sealBytes } from '../src/events/log/sealing/cipher.js';
import { aadOf, groupLimit } from '../src/events/log/sealing/group.js';
import { createKeystore } from '../src/events/log/sealing/keystore.js';
import { streams } from '../src/events/streams.js';
import { memoryWrittenEvent, testEventMetadata } from './support/events.js';
import { openTestStore, type TestStore } from './support/store.js';

interface StoredEnvelope {
  k: number[];
  f: string[];
  iv: string;
  ct: string;
  tag: string;
  p?: number[];
}

const texts = (events: readonly DomainEvent[]): string[] => events.map((e) => (e.type === 'MemoryWritten' ? e.data.text : e.type));

/** Six memories of two users interleaved (u1, u2, u1, ...): one append, two sealed groups of three. */
const mixed = (): DomainEvent[] =>
  Array.from({ length: 6 }, (_, i) => memoryWrittenEvent(`m${i}`, `words ${i} of u${(i % 2) + 1}`, { userId: `u${(i % 2) + 1}` }));

describe('grouped sealed boxes: one AES-GCM operation for the events of an append under the same keys', () => {
  let store: TestStore;
  beforeEach(() => {
    store = openTestStore([]);
  });
  afterEach(() => store.close());

  const envelope = (position: number): StoredEnvelope =>
    (JSON.parse(store.db.prepare('SELECT data FROM events WHERE global_position = ?').pluck().get(position) as string) as { $sealed: StoredEnvelope }).$sealed;
  const setEnvelope = (position: number, change: (e: StoredEnvelope) => void): void => {
    const data = JSON.parse(store.db.prepare('SELECT data FROM events WHERE global_position = ?').pluck().get(position) as string) as { $sealed: StoredEnvelope };
    change(data.$sealed);
    store.db.prepare('UPDATE events SET data = ? WHERE global_position = ?').run(JSON.stringify(data), position);
  };
  const erasedEvent = (id: string): DomainEvent => ({
    type: 'SubjectErased', schemaVersion: 1, metadata: testEventMetadata(),
    data: { erasureId: `erase-${id}`, subject: { kind: 'user', id }, reason: 'request', keyIds: [], counts: { memories: 0, memoryUpdates: 0, atoms: 0, graphLinks: 0, messages: 0, events: 0 } },
  });

  it('groups by key set within the append, one iv and tag per group, and reads every event back', async () => {
    const events = mixed();
    await store.log.append('memory-batch', events);
    expect([1, 3, 5].map((p) => envelope(p).p)).toEqual([[1, 3, 5], [1, 3, 5], [1, 3, 5]]);
    expect([2, 4, 6].map((p) => envelope(p).p)).toEqual([[2, 4, 6], [2, 4, 6], [2, 4, 6]]);
    expect(new Set([1, 3, 5].map((p) => envelope(p).iv)).size).toBe(1);
    expect(envelope(1).iv).not.toBe(envelope(2).iv);
    expect(JSON.stringify([1, 2, 3, 4, 5, 6].map(envelope))).not.toMatch(/words/);
    const read = await store.log.readAll();
    expect(read.map((e) => ({ data: e.data, metadata: e.metadata }))).toEqual(events.map((e) => ({ data: e.data, metadata: e.metadata })));
  });

  it('opens one event alone, fetching the other members: a single position, a page cut, a stream tail, a past view', async () => {
    const events = mixed();
    await store.log.append('memory-batch', events);
    expect(texts(await store.log.readAll({ from: 3n, to: 3n }))).toEqual([texts(events)[2]]);
    expect(texts(await store.log.readAll({ from: 4n, limit: 2 }))).toEqual(texts(events).slice(3, 5));
    expect(texts(await store.log.readStream('memory-batch', { fromRevision: 5n }))).toEqual(texts(events).slice(5));
    // A view of the past that ends inside the groups: their later members are read to authenticate, not returned.
    expect(texts(await store.log.readAll({ to: 2n }))).toEqual(texts(events).slice(0, 2));
  });

  it('caps a group at groupLimit events and keeps a lone event in the single-box form', async () => {
    const many = Array.from({ length: groupLimit + 3 }, (_, i) => memoryWrittenEvent(`n${i}`, `same user ${i}`, { userId: 'u1' }));
    await store.log.append('memory-many', [...many, memoryWrittenEvent('lone', 'alone', { userId: 'u9' })]);
    expect(envelope(1).p).toHaveLength(groupLimit);
    expect(envelope(groupLimit + 1).p).toEqual([groupLimit + 1, groupLimit + 2, groupLimit + 3]);
    expect(Object.keys(envelope(groupLimit + 4)).sort()).toEqual(['ct', 'f', 'iv', 'k', 'tag']);
    expect(texts(await store.log.readAll())).toEqual(texts([...many, memoryWrittenEvent('lone', 'alone')]));
  });

  it('erasing one subject of a mixed append erases its events only; counts, sealed events and the chain agree', async () => {
    await store.log.append('memory-batch', mixed());
    expect(texts(await store.log.sealedEvents({ kind: 'user', id: 'u2' }))).toEqual(['words 1 of u2', 'words 3 of u2', 'words 5 of u2']);
    const result = await store.log.eraseSubject({ kind: 'user', id: 'u2' }, () => ({ streamId: streams.erasures, event: erasedEvent('u2') }));
    expect(result.counts).toMatchObject({ memories: 3, events: 3 });
    const read = await store.log.readAll();
    expect(texts(read)).toEqual(['words 0 of u1', '[erased]', 'words 2 of u1', '[erased]', 'words 4 of u1', '[erased]', 'SubjectErased']);
    expect(read.map((e) => e.metadata.erased === true)).toEqual([false, true, false, true, false, true, false]);
    expect(texts(await store.log.readAll({ from: 4n, to: 5n }))).toEqual(['[erased]', 'words 4 of u1']);
    expect((await store.log.verifyChain()).ok).toBe(true);
  });

  const tampers: [string, () => void][] = [
    ['a flipped ciphertext byte of one member', () => setEnvelope(3, (e) => {
      const ct = Buffer.from(e.ct, 'base64');
      ct[0] = (ct[0] ?? 0) ^ 1;
      e.ct = ct.toString('base64');
    })],
    ['ciphertext bytes moved from one member to the next', () => {
      const a = Buffer.from(envelope(1).ct, 'base64');
      const b = Buffer.from(envelope(3).ct, 'base64');
      setEnvelope(1, (e) => (e.ct = a.subarray(0, a.length - 1).toString('base64')));
      setEnvelope(3, (e) => (e.ct = Buffer.concat([a.subarray(a.length - 1), b]).toString('base64')));
    }],
    ['two members swapped', () => {
      const [one, three] = [envelope(1).ct, envelope(3).ct];
      setEnvelope(1, (e) => (e.ct = three));
      setEnvelope(3, (e) => (e.ct = one));
    }],
    ['a tag cut to 4 bytes in every member', () => {
      for (const p of [1, 3, 5]) setEnvelope(p, (e) => (e.tag = Buffer.from(e.tag, 'base64').subarray(0, 4).toString('base64')));
    }],
    ['a member dropped from every p', () => {
      for (const p of [1, 3]) setEnvelope(p, (e) => (e.p = [1, 3]));
    }],
    ['another event id in one member', () => store.db.prepare(`UPDATE events SET metadata = json_set(metadata, '$.eventId', 'forged') WHERE global_position = 5`).run()],
  ];

  it.each(tampers)('%s: every event of that group reads as corrupt, the other group still opens', async (_, tamper) => {
    await store.log.append('memory-batch', mixed());
    tamper();
    for (const position of [1n, 3n, 5n]) {
      await expect(store.log.readAll({ from: position, to: position })).rejects.toBeInstanceOf(CorruptEventError);
    }
    await expect(store.log.readAll()).rejects.toThrow(/position 1\b/);
    expect(texts(await store.log.readAll({ from: 2n, to: 2n }))).toEqual(['words 1 of u2']);
    expect(texts(await store.log.readAll({ from: 6n, to: 6n }))).toEqual(['words 5 of u2']);
  });

  it('still opens a box in the single form written before groups existed', async () => {
    await store.log.append('memory-old', [memoryWrittenEvent('old', 'placeholder', { userId: 'u1' })]);
    // Rewrite the box exactly as the earlier code sealed it: sealBytes, the event's own associated data, no p.
    const keystore = createKeystore(store.db);
    const { k, f } = envelope(1);
    const eventId = (JSON.parse(store.db.prepare('SELECT metadata FROM events WHERE global_position = 1').pluck().get() as string) as { eventId: string }).eventId;
    const dataKey = keystore.dataKey(k);
    if (!dataKey) throw new Error('no data key');
    const box = sealBytes(dataKey, JSON.stringify(['sealed by the old code', [], [], [], null, []]), aadOf('MemoryWritten', eventId, { k, f }));
    setEnvelope(1, (e) => Object.assign(e, box));
    expect(Object.keys(envelope(1)).sort()).toEqual(['ct', 'f', 'iv', 'k', 'tag']);
    expect(texts(await store.log.readAll())).toEqual(['sealed by the old code']);
  });
});
