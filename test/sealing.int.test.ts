import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DomainEvent } from '../src/events/catalog.js';
import { CorruptEventError } from '../src/events/errors.js';
import type { SubjectRef } from '../src/events/log/sealing/keystore.js';
import { createSqliteEventLog } from '../src/events/log/sqlite-event-log.js';
import { streams } from '../src/events/streams.js';
import { memoryWrittenEvent, testEventMetadata } from './support/events.js';
import { openTestStore, type TestStore } from './support/store.js';

const erasedEvent = (subject: SubjectRef): DomainEvent => ({
  type: 'SubjectErased',
  schemaVersion: 1,
  data: {
    erasureId: `erase-${subject.kind}-${subject.id}`,
    subject: { kind: subject.kind as 'user', id: subject.id },
    reason: 'request of the data subject',
    keyIds: [],
    counts: { memories: 0, memoryUpdates: 0, atoms: 0, graphLinks: 0, messages: 0, events: 0 },
  },
  metadata: testEventMetadata(),
});

describe('content sealed at the SQLite log boundary', () => {
  let store: TestStore;
  beforeEach(() => {
    store = openTestStore([]);
  });
  afterEach(() => store.close());

  const erase = (subject: SubjectRef) => store.log.eraseSubject(subject, () => ({ streamId: streams.erasures, event: erasedEvent(subject) }));
  const stored = (position: number): string =>
    (store.db.prepare('SELECT data FROM events WHERE global_position = ?').pluck().get(position) as string) ?? '';
  const scoped = { userId: 'u1', sessionId: 's1', personaId: 'p1' };

  it('stores ciphertext and reads back exactly what was appended', async () => {
    const written = memoryWrittenEvent('m1', 'Alice likes zqgreen tea', { ...scoped, keyFacts: ['zqfact'], topics: ['zqtopic'] });
    await store.log.append('memory-m1', [written]);
    // Whole words: two letters alone turn up in base64 ciphertext now and then ("Ezqc" in an IV failed CI once).
    expect(stored(1)).not.toMatch(/zqgreen|zqfact|zqtopic/);
    expect(JSON.parse(stored(1))).toMatchObject({ memoryId: 'm1', userId: 'u1', $sealed: { f: ['text', 'topics', 'keyFacts', 'participants', 'sentiment', 'sources'] } });
    const [read] = await store.log.readAll();
    expect(read).toMatchObject({ type: written.type, data: written.data, metadata: written.metadata });
    expect(read?.metadata.erased).toBeUndefined();
  });

  it('rejects a tampered ciphertext as corrupt, naming the position but no key', async () => {
    await store.log.append('memory-m1', [memoryWrittenEvent('m1', 'secret words', scoped)]);
    const data = JSON.parse(stored(1)) as { $sealed: { ct: string } };
    const ct = Buffer.from(data.$sealed.ct, 'base64');
    ct[0] = (ct[0] ?? 0) ^ 1;
    data.$sealed.ct = ct.toString('base64');
    store.db.prepare('UPDATE events SET data = ? WHERE global_position = 1').run(JSON.stringify(data));
    await expect(store.log.readAll()).rejects.toThrow(CorruptEventError);
    await expect(store.log.readAll()).rejects.toThrow(/position 1.*authentication/);
    const error = (await store.log.readAll().then(() => new Error('read did not fail'), (e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(CorruptEventError);
    const keys = store.db.prepare('SELECT key FROM subject_keys').pluck().all() as Buffer[];
    expect(keys.length).toBe(3);
    for (const key of keys) {
      expect(`${error.message}${error.stack}`).not.toContain(key.toString('hex'));
      expect(`${error.message}${error.stack}`).not.toContain(key.toString('base64'));
    }
  });

  it.each(['user', 'session', 'persona'] as const)('erasing the %s alone makes an event of all three unreadable', async (kind) => {
    await store.log.append('memory-m1', [memoryWrittenEvent('m1', 'all three', scoped)]);
    await store.log.append('memory-m2', [memoryWrittenEvent('m2', 'someone else', { userId: 'u2', sessionId: 's2', personaId: 'p2' })]);
    const result = await erase({ kind, id: `${kind[0]}1` });
    expect(result.counts).toMatchObject({ memories: 1, events: 1 });
    const [first, second] = await store.log.readAll();
    expect(first?.data).toMatchObject({ memoryId: 'm1', text: '[erased]', topics: [], sources: [], userId: 'u1' });
    expect(first?.metadata.erased).toBe(true);
    expect(second?.data).toMatchObject({ text: 'someone else' });
    expect(store.db.prepare('SELECT count(*) FROM subject_keys').pluck().get()).toBe(5);
    expect((await store.log.verifyChain()).ok).toBe(true);
  });

  it('given sealed events the log just wrote and read, when their subject is erased, then the same log reads them erased, as a fresh log does', async () => {
    await store.log.append('memory-m1', [memoryWrittenEvent('m1', 'zqkept words', scoped)]);
    await store.log.append('memory-m2', [memoryWrittenEvent('m2', 'someone else', { userId: 'u2' })]);
    expect((await store.log.readAll())[0]?.data).toMatchObject({ text: 'zqkept words' });
    await erase({ kind: 'user', id: 'u1' });
    const read = await store.log.readAll();
    expect(JSON.stringify(read.map((e) => e.data))).not.toMatch(/zqkept/);
    expect(read[0]?.metadata.erased).toBe(true);
    expect(read).toStrictEqual(await createSqliteEventLog(store.db).readAll());
  });

  it('seals updates, atoms and graph links of a memory under its subjects, so erasing the user reaches them', async () => {
    const meta = testEventMetadata;
    await store.log.append('memory-m1', [
      memoryWrittenEvent('m1', 'first words', { userId: 'u1' }),
      { type: 'MemoryUpdated', schemaVersion: 1, data: { memoryId: 'm1', changes: { text: 'second words', importance: 0.9 } }, metadata: meta() },
      {
        type: 'AtomExtracted', schemaVersion: 1, metadata: meta(),
        data: { atomId: 'a1', memoryId: 'm1', atomType: 'fact', content: 'atom words', entities: ['Alice'], importance: 0.5, confidence: 0.9, ttlDays: 30, expiresAt: null, decayType: 'none', sessionId: null, personaId: null },
      },
    ]);
    for (const position of [2, 3]) expect(stored(position)).not.toMatch(/words|Alice/);
    const result = await erase({ kind: 'user', id: 'u1' });
    expect(result.counts).toMatchObject({ memories: 1, memoryUpdates: 1, atoms: 1, events: 3 });
    const events = await store.log.readAll();
    expect(events.slice(0, 3).every((e) => e.metadata.erased === true)).toBe(true);
    expect(events[1]?.data).toEqual({ memoryId: 'm1', changes: { text: '[erased]', importance: 0.9 } });
    expect(events[2]?.data).toMatchObject({ content: '[erased]', entities: [], atomId: 'a1' });
    expect(events[3]).toMatchObject({ type: 'SubjectErased', data: { subject: { kind: 'user', id: 'u1' } } });
  });

  it('gives a returning subject a new key that never opens what the old one sealed', async () => {
    await store.log.append('memory-m1', [memoryWrittenEvent('m1', 'before erasure', { userId: 'u1' })]);
    await erase({ kind: 'user', id: 'u1' });
    await store.log.append('memory-m3', [memoryWrittenEvent('m3', 'after erasure', { userId: 'u1' })]);
    const events = await store.log.readAll();
    expect(events.map((e) => (e.type === 'MemoryWritten' ? e.data.text : e.type))).toEqual(['[erased]', 'SubjectErased', 'after erasure']);
  });

  it('seals message content by session and sender', async () => {
    await store.log.append('conversation-s1', [{
      type: 'MessageRecorded', schemaVersion: 2, metadata: testEventMetadata(),
      data: { sessionId: 's1', messageId: 'msg1', index: 0, role: 'user', senderId: 'u9', userId: null, senderName: 'Zoe', content: 'zqmessage body', sentAt: '2026-01-01T00:00:00.000Z' },
    }]);
    expect(stored(1)).not.toMatch(/zqmessage|"Zoe"/);
    await erase({ kind: 'user', id: 'u9' });
    const [message] = await store.log.readAll();
    expect(message?.data).toMatchObject({ content: '[erased]', senderName: null, senderId: 'u9' });
  });

  it('seals a message under the turn user too, and a derived memory under every subject of its sources', async () => {
    const message = (sessionId: string, messageId: string, senderId: string | null, userId: string | null): DomainEvent => ({
      type: 'MessageRecorded', schemaVersion: 2, metadata: testEventMetadata(),
      data: { sessionId, messageId, index: 0, role: 'assistant', senderId, userId, senderName: null, content: `zq${messageId}`, sentAt: '2026-01-01T00:00:00.000Z' },
    });
    await store.log.append('conversation-s7', [message('s7', 'reply', null, 'zoe')]);
    await store.log.append('conversation-s8', [message('s8', 'other', null, 'max')]);
    const source = (messageId: string, senderId: string, sessionId: string) =>
      ({ messageId, sessionId, role: 'user' as const, senderId, senderName: null, content: `zq${messageId}`, at: null });
    // A group summary: its own scope names only the bot's account; its words came from ann and ben.
    await store.log.append('memory-g', [memoryWrittenEvent('g', 'ann and ben talked', { userId: 'bot', sources: [source('a1', 'ann', 'g1'), source('b1', 'ben', 'g1')] })]);
    await store.log.append('memory-h', [memoryWrittenEvent('h', 'ann alone', { userId: 'bot', sources: [source('a2', 'ann', 'g1')] })]);
    await erase({ kind: 'user', id: 'zoe' });
    await erase({ kind: 'user', id: 'ben' });
    const read = await store.log.readAll();
    const text = (type: string, id: string) => {
      const e = read.find((x) => x.type === type && (x.data as { messageId?: string; memoryId?: string })[type === 'MessageRecorded' ? 'messageId' : 'memoryId'] === id);
      return (e?.data as { content?: string; text?: string } | undefined)?.[type === 'MessageRecorded' ? 'content' : 'text'];
    };
    expect([text('MessageRecorded', 'reply'), text('MessageRecorded', 'other')]).toEqual(['[erased]', 'zqother']);
    expect([text('MemoryWritten', 'g'), text('MemoryWritten', 'h')]).toEqual(['[erased]', 'ann alone']);
  });
});
