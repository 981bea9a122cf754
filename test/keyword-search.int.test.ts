import fc from 'fast-check';
import nodejieba from 'nodejieba';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stampEvents, type EventBody } from '../src/commands/decider.js';
import type { EventOf } from '../src/events/catalog.js';
import type { SourceMessage } from '../src/events/fields.js';
import { streams } from '../src/events/streams.js';
import { documentsProjection } from '../src/projections/documents.js';
import { ftsProjection } from '../src/projections/fts.js';
import { sourcesProjection } from '../src/projections/sources.js';
import { tokenize } from '../src/projections/text/tokenizer.js';
import { createKeywordSearch } from '../src/queries/keyword.js';
import { testMetadata } from './support/decider-spec.js';
import { openTestStore, type TestStore } from './support/store.js';

type Written = EventOf<'MemoryWritten'>['data'];

let n = 0;
const append = (store: TestStore, memoryId: string, body: EventBody) =>
  store.log.append(streams.memory(memoryId), stampEvents([body], testMetadata((n += 1))));

const write = (store: TestStore, memoryId: string, text: string, data: Partial<Written> = {}) =>
  append(store, memoryId, {
    type: 'MemoryWritten',
    schemaVersion: 2,
    data: {
      memoryId, text, importance: 0.5, sessionId: 's', personaId: 'p', userId: 'u',
      topics: [], keyFacts: [], participants: [], sentiment: null, sources: [], ...data,
    },
  });
const forget = (store: TestStore, memoryId: string) =>
  append(store, memoryId, { type: 'MemoryForgotten', schemaVersion: 1, data: { memoryId, reason: 'asked' } });
const archive = (store: TestStore, memoryId: string) =>
  append(store, memoryId, { type: 'MemoryArchived', schemaVersion: 1, data: { memoryId, reason: 'old' } });
const restore = (store: TestStore, memoryId: string) =>
  append(store, memoryId, { type: 'MemoryRestored', schemaVersion: 1, data: { memoryId } });
const update = (store: TestStore, memoryId: string, text: string) =>
  append(store, memoryId, { type: 'MemoryUpdated', schemaVersion: 1, data: { memoryId, changes: { text } } });

const source = (messageId: string, content: string): SourceMessage => ({
  messageId, sessionId: 's', role: 'user', senderId: 'u', senderName: 'Ann', content, at: null,
});

const open = () => openTestStore([documentsProjection, ftsProjection, sourcesProjection]);
const searchOf = (store: TestStore) =>
  createKeywordSearch(
    store.db,
    () => store.runner.liveTable('fts', 'livingmemory_memories_fts'),
    () => store.runner.liveTable('fts', 'livingmemory_memories_fts_keys'),
  );
const ids = (hits: readonly { memoryId: string }[]) => hits.map((h) => h.memoryId).sort();

let store: TestStore;
afterEach(() => store?.close());

describe('keyword search: stored tokens', () => {
  it("gives each indexed memory's tokens of its current text, exactly as tokenize() makes them", async () => {
    store = open();
    await write(store, 'bridge', '我们明天去南京市长江大桥散步');
    await write(store, 'door', 'Ann remembered the red door');
    await write(store, 'gone', 'to be forgotten');
    await write(store, 'empty', 'the of and');
    await update(store, 'door', 'Ann painted the door blue');
    await forget(store, 'gone');
    await store.runner.catchUp();
    const stored = searchOf(store).tokensOf(['bridge', 'door', 'gone', 'empty', 'never']);
    expect([...stored.keys()].sort()).toEqual(['bridge', 'door', 'empty']);
    expect(stored.get('bridge')).toEqual(tokenize('我们明天去南京市长江大桥散步'));
    expect(stored.get('door')).toEqual(tokenize('Ann painted the door blue'));
    expect(stored.get('empty')).toEqual([]);
    expect(searchOf(store).tokensOf([]).size).toBe(0);
  });
});

describe('keyword search: matching', () => {
  it('finds a Chinese memory by a jieba word, and not an unrelated one', async () => {
    store = open();
    await write(store, 'bridge', '我们明天去南京市长江大桥散步');
    await write(store, 'weather', '今天天气很好，我们去公园吧');
    await store.runner.catchUp();
    expect(ids(searchOf(store).search('长江大桥'))).toEqual(['bridge']);
  });

  it('finds a Chinese memory through bigrams where jieba cuts query and memory differently', async () => {
    store = open();
    const text = '我的记忆系统很好用';
    // The premise: jieba gives the memory '记忆系统' and the query '记忆', so no jieba word is shared.
    expect(nodejieba.cut(text)).not.toContain('记忆');
    expect(nodejieba.cut(text)).toContain('记忆系统');
    await write(store, 'system', text);
    await write(store, 'other', '长江大桥');
    await store.runner.catchUp();
    expect(ids(searchOf(store).search('记忆'))).toEqual(['system']);
  });

  it('matches English by stem', async () => {
    store = open();
    await write(store, 'door', 'Ann remembered the red door');
    await write(store, 'tea', 'Alice likes green tea');
    await store.runner.catchUp();
    const search = searchOf(store);
    expect(ids(search.search('remember'))).toEqual(['door']);
    expect(ids(search.search('liking'))).toEqual(['tea']);
    expect(search.search('the')).toEqual([]);
    expect(search.search('')).toEqual([]);
  });

  it('scores higher for the better match, best first', async () => {
    store = open();
    await write(store, 'once', 'tea with a long list of other words about many unrelated things');
    await write(store, 'twice', 'tea, tea and more tea');
    await store.runner.catchUp();
    const hits = searchOf(store).search('tea');
    expect(hits.map((h) => h.memoryId)).toEqual(['twice', 'once']);
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? Infinity);
    expect(hits[1]?.score).toBeGreaterThan(0);
  });

  it('follows updates, archive and restore, and forgets for good', async () => {
    store = open();
    await write(store, 'm', 'Bob plays chess');
    await write(store, 'gone', 'Bob plays chess every Sunday');
    await store.runner.catchUp();
    const search = searchOf(store);
    await update(store, 'm', 'Bob plays the piano');
    await forget(store, 'gone');
    await store.runner.catchUp();
    expect(search.search('chess')).toEqual([]);
    expect(ids(search.search('piano'))).toEqual(['m']);
    await archive(store, 'm');
    await store.runner.catchUp();
    expect(search.search('piano')).toEqual([]);
    expect(ids(search.search('piano', { status: 'archived' }))).toEqual(['m']);
    expect(ids(search.search('piano', { status: null }))).toEqual(['m']);
    await restore(store, 'm');
    await store.runner.catchUp();
    expect(ids(search.search('piano'))).toEqual(['m']);
    const table = store.runner.liveTable('fts', 'livingmemory_memories_fts');
    expect(store.db.prepare(`SELECT memory_id FROM ${table} WHERE memory_id = 'gone'`).all()).toEqual([]);
    expect(search.search('chess', { status: null })).toEqual([]);
  });
});

describe('keyword search: filters run before the LIMIT', () => {
  // 20 memories that match better than the one the filter selects: filtering after LIMIT finds nothing.
  const strong = 'tea tea tea';
  const weak = 'tea with a long list of other words about many unrelated things';

  it.each([
    ['sessionId', 'sessionId', 'A', 'B'],
    ['personaId', 'personaId', 'p1', 'p2'],
    ['userId', 'userId', 'u1', 'u2'],
  ] as const)('by %s', async (_name, field, crowd, wanted) => {
    store = open();
    for (let i = 0; i < 20; i += 1) await write(store, `crowd${i}`, strong, { [field]: crowd });
    await write(store, 'wanted', weak, { [field]: wanted });
    await store.runner.catchUp();
    const search = searchOf(store);
    // The premise: unfiltered, the crowd outranks the wanted memory.
    expect(search.search('tea', { limit: 20 }).map((h) => h.memoryId)).not.toContain('wanted');
    expect(ids(search.search('tea', { [field]: wanted, limit: 1 }))).toEqual(['wanted']);
    expect(search.search('tea', { [field]: crowd, limit: 5 })).toHaveLength(5);
  });

  it('by status', async () => {
    store = open();
    for (let i = 0; i < 20; i += 1) await write(store, `crowd${i}`, strong);
    await write(store, 'wanted', weak);
    await archive(store, 'wanted');
    await store.runner.catchUp();
    const search = searchOf(store);
    expect(search.search('tea', { status: null, limit: 20 }).map((h) => h.memoryId)).not.toContain('wanted');
    expect(ids(search.search('tea', { status: 'archived', limit: 1 }))).toEqual(['wanted']);
    expect(search.search('tea', { limit: 100 })).toHaveLength(20);
    expect(search.search('tea')).toHaveLength(10);
  });
});

describe('memory sources', () => {
  it('stores every memory’s sources, keeps them out of keyword search, and drops them on forget', async () => {
    store = open();
    const sources = [source('msg1', 'the zebra escaped'), source('msg2', '斑马跑了')];
    await write(store, 'with', 'we talked about the giraffe', { sources });
    await write(store, 'without', 'nothing else');
    await store.runner.catchUp();
    const table = store.runner.liveTable('memory_sources', 'memory_sources');
    const read = (id: string) =>
      (store.db.prepare(`SELECT sources FROM ${table} WHERE memory_id = ?`).get(id) as { sources: string } | undefined)?.sources;
    expect(JSON.parse(read('with') ?? 'null')).toEqual(sources);
    expect(read('without')).toBe('[]');
    const search = searchOf(store);
    expect(ids(search.search('giraffe'))).toEqual(['with']);
    expect(search.search('zebra', { status: null })).toEqual([]);
    expect(search.search('斑马', { status: null })).toEqual([]);
    await forget(store, 'with');
    await store.runner.catchUp();
    expect(read('with')).toBeUndefined();
  });
});

describe('FTS5 keeps every token whole', () => {
  let shared: TestStore;
  beforeAll(() => {
    shared = open();
  });
  afterAll(() => shared.close());

  const tricky = [...'记忆系统南京市长江大桥東京タワー한국어々〇⺀ーİßΣςᎠaé\u0301\u3099 ,.!"*()'];
  // Words whose combining marks sit inside the word (unicode61's default categories split them).
  const words = fc.constantFrom(
    'हिन्दी', 'नमस्ते', 'ภาษาไทย', 'مَرْحَبًا', 'שָׁלוֹם', 'x\u3099y', 'ß\u0301s', 'İstanbul', 'ΣΟΦΙΑΣ',
    '记忆系统', '南京市长江大桥', 'タワー', '한국어', 'memories', '〇々', '⺀',
  );
  const trickyString = fc.string({ unit: fc.constantFrom(...tricky), maxLength: 30 });
  const text = fc
    .oneof(
      fc.string({ unit: 'binary', maxLength: 30 }),
      trickyString,
      fc.array(fc.oneof(words, trickyString), { minLength: 1, maxLength: 6 }).map((parts) => parts.join(' ')),
    )
    .filter((s) => s.trim().length > 0);

  it('indexes exactly our tokens, each found by its own query; no query string breaks MATCH', async () => {
    let i = 0;
    const vocab = () => {
      const table = shared.runner.liveTable('fts', 'livingmemory_memories_fts');
      shared.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab_${table} USING fts5vocab(main, ${table}, 'instance')`);
      return { table, vocab: `temp.vocab_${table}` };
    };
    await fc.assert(
      fc.asyncProperty(text, async (t) => {
        i += 1;
        await write(shared, `r${i}`, t);
        await shared.runner.catchUp();
        const { vocab: v } = vocab();
        const position = Number(await shared.log.headPosition());
        const indexed = shared.db.prepare(`SELECT count(*) AS c FROM ${v} WHERE doc = ?`).get(position) as { c: number };
        const tokens = tokenize(t);
        expect(indexed.c).toBe(tokens.length);
        const { table } = vocab();
        const match = shared.db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ?`).pluck();
        for (const token of new Set(tokens)) expect(match.all(`"${token}"`)).toContain(position);
        expect(() => searchOf(shared).search(t)).not.toThrow();
      }),
      { numRuns: 150 },
    );
  });
});
