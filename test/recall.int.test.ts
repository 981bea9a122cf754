import { afterEach, describe, expect, it } from 'vitest';
import { createHashEmbeddingProvider } from '../src/providers/embeddings/hash.js';
import type { EmbeddingProvider } from '../src/providers/embeddings/provider.js';
import { controllableProvider, openTestEngine, tempDir, testEnvironment } from './support/engine.js';

let temp: ReturnType<typeof tempDir>;
afterEach(() => temp?.remove());

const ids = (answer: { memories: { memoryId: string }[] }) => answer.memories.map((m) => m.memoryId);

describe('recall through the engine', () => {
  it('finds Chinese and English memories and explains why', async () => {
    temp = tempDir();
    const engine = await openTestEngine(temp.dir);
    const tea = await engine.writeMemory({ memoryId: 'tea', text: 'Alice likes green tea every morning', sessionId: 's1' });
    await engine.writeMemory({ memoryId: 'bridge', text: '我们明天去南京市长江大桥散步', sessionId: 's1' });
    await engine.writeMemory({ memoryId: 'acme', text: 'Bob works at Acme as an engineer', sessionId: 's1' });
    const en = await engine.recall({ query: 'green tea', scope: { mode: 'global' }, topK: 1, explain: true });
    expect(ids(en)).toEqual([tea.memoryId]);
    expect(en.memories[0]?.explain?.routes['document.keyword']).toBeGreaterThan(0);
    expect(ids(await engine.recall({ query: '长江大桥', scope: { mode: 'global' }, topK: 1 }))).toEqual(['bridge']);
    expect(en.injection.text).toContain('<livingmemory>');
    expect(en.injection.included).toEqual(['tea']);
    await engine.close();
  });

  it('serves repeats from the cache and invalidates it on any write', async () => {
    temp = tempDir();
    const engine = await openTestEngine(temp.dir);
    await engine.writeMemory({ memoryId: 'a', text: 'Carol plays the violin' });
    const first = await engine.recall({ query: 'violin', scope: { mode: 'global' } });
    const second = await engine.recall({ query: 'violin', scope: { mode: 'global' } });
    expect([first.cacheHit, second.cacheHit]).toEqual([false, true]);
    await engine.writeMemory({ memoryId: 'b', text: 'Dave also plays the violin' });
    const third = await engine.recall({ query: 'violin', scope: { mode: 'global' } });
    expect(third.cacheHit).toBe(false);
    expect(ids(third).sort()).toEqual(['a', 'b']);
    await engine.forgetMemory('a');
    const fourth = await engine.recall({ query: 'violin', scope: { mode: 'global' } });
    expect(ids(fourth)).toEqual(['b']);
    await engine.close();
  });

  it('falls back to BM25 when the vector route fails', async () => {
    temp = tempDir();
    const { provider, control } = controllableProvider();
    const engine = await openTestEngine(temp.dir, { embeddingProvider: provider });
    await engine.writeMemory({ memoryId: 'a', text: 'Erin collects vintage stamps' });
    await engine.writeMemory({ memoryId: 'b', text: 'Frank repairs old bicycles' });
    control.down = true;
    const answer = await engine.recall({ query: 'stamps', scope: { mode: 'global' }, topK: 1, explain: true });
    expect(ids(answer)).toEqual(['a']);
    expect(answer.memories[0]?.explain?.routes['document.vector']).toBe(0);
    await engine.close();
  });

  it('keeps the document route when the graph route fails', async () => {
    temp = tempDir();
    const slow: EmbeddingProvider = createHashEmbeddingProvider({ dimension: 32 });
    const engine = await openTestEngine(temp.dir, { embeddingProvider: slow });
    await engine.writeMemory({ memoryId: 'a', text: 'Gina teaches chemistry', participants: ['Gina'] });
    const search = engine.indexes.graph.searchAny;
    engine.indexes.graph.searchAny = () => {
      throw new Error('graph index unavailable');
    };
    const answer = await engine.recall({ query: 'chemistry', scope: { mode: 'global' }, explain: true });
    engine.indexes.graph.searchAny = search;
    expect(ids(answer)).toEqual(['a']);
    expect(answer.memories[0]?.explain?.bonuses.degraded).toBe(1);
    await engine.close();
  });

  it('shows only live atoms and records access statistics as one batched event', async () => {
    temp = tempDir();
    const engine = await openTestEngine(temp.dir);
    await engine.writeMemory({ memoryId: 'a', text: 'Hana loves jazz. Hana lives in Osaka.' });
    await engine.writeMemory({ memoryId: 'b', text: 'Ivan loves jazz too' });
    const answer = await engine.recall({ query: 'jazz', scope: { mode: 'global' } });
    expect(answer.memories.find((m) => m.memoryId === 'a')?.facts.length).toBeGreaterThan(0);
    await engine.flushAccess();
    const access = await engine.log.readStream('system-access');
    expect(access).toHaveLength(1);
    expect(access[0]?.type === 'MemoriesAccessed' && access[0].data.accesses.map((a) => a.memoryId).sort()).toEqual(['a', 'b']);
    await engine.indexes.catchUp();
    expect(engine.documents.get('a')?.accessCount).toBe(1);
    await engine.close();
  });

  it('keeps a record (a memory with sources) and an active note after their atoms expire, both by their own text', async () => {
    temp = tempDir();
    const env = testEnvironment(Date.UTC(2026, 0, 1), 'r');
    const engine = await openTestEngine(temp.dir, { env });
    const source = { messageId: 'm-7', sessionId: 's1', role: 'user' as const, senderId: 'u', senderName: 'Jo', content: 'I went hiking yesterday', at: null };
    await engine.writeMemory({ memoryId: 'turn', text: 'Jo: I went hiking yesterday', sources: [source] });
    await engine.writeMemory({ memoryId: 'note', text: 'Jo went hiking yesterday' });
    // Both memories' only atom is an episode (7 days at least); a year later it has expired.
    env.calls += 365 * 86_400;
    const answer = await engine.recall({ query: 'hiking', scope: { mode: 'global' } });
    expect(new Set(ids(answer))).toEqual(new Set(['turn', 'note']));
    expect(answer.memories.map((m) => m.facts)).toEqual([[], []]);
    expect(answer.injection.text).toContain('Jo: I went hiking yesterday');
    expect(answer.injection.text).toContain('Jo went hiking yesterday');
    await engine.close();
  });

  it('brings in the reply written right after a matched turn of the same session', async () => {
    temp = tempDir();
    const other = tempDir();
    // Vectors down: the reply shares no word with the query, so only context can bring it in.
    const { provider, control } = controllableProvider();
    control.down = true;
    const engine = await openTestEngine(temp.dir, { embeddingProvider: provider });
    const without = await openTestEngine(other.dir, { embeddingProvider: provider, recallSettings: { contextNextWeight: 0, contextPreviousWeight: 0 } });
    // Turns: each memory is one message of its session (a note without a source has no conversation around it).
    const turn = (memoryId: string, text: string, sessionId: string) => ({
      memoryId, text, sessionId, sources: [{ messageId: `m-${memoryId}`, sessionId, role: 'user' as const, senderId: 'u', senderName: 'Kim', content: text, at: null }],
    });
    for (const e of [engine, without]) {
      await e.writeMemory(turn('q', 'Kim: how long have you been married?', 's1'));
      await e.writeMemory(turn('a', 'Lee: five years already, time flies', 's1'));
      await e.writeMemory(turn('other', 'Lee: five years of piano lessons', 's2'));
    }
    expect(engine.indexes.documents.sessionWindow(['q', 'a', 'other'], 1)).toEqual(
      new Map([['q', { before: [], after: ['a'] }], ['a', { before: ['q'], after: [] }], ['other', { before: [], after: [] }]]),
    );
    expect(engine.indexes.documents.sessionWindow(['q', 'other', 'missing'], 2)).toEqual(
      new Map([['q', { before: [], after: ['a'] }], ['other', { before: [], after: [] }]]),
    );
    expect(engine.indexes.sources.countsOf(['q', 'a', 'missing'])).toEqual(new Map([['q', 1], ['a', 1]]));
    const answer = await engine.recall({ query: 'married', scope: { mode: 'global' }, explain: true });
    expect(ids(answer)).toEqual(['q', 'a']);
    expect(answer.memories[1]?.explain?.bonuses.context).toBeGreaterThan(0);
    expect(ids(await without.recall({ query: 'married', scope: { mode: 'global' } }))).toEqual(['q']);
    await without.close();
    await engine.close();
    other.remove();
  });

  it('favours the turns of the person the query names, after context (a reply by them counts too)', async () => {
    temp = tempDir();
    const { provider, control } = controllableProvider();
    control.down = true;
    const engine = await openTestEngine(temp.dir, { embeddingProvider: provider });
    const turn = (memoryId: string, speaker: string, text: string) => ({
      memoryId, text: `${speaker}: ${text}`, sessionId: 's1', participants: [speaker],
      sources: [{ messageId: `m-${memoryId}`, sessionId: 's1', role: 'user' as const, senderId: speaker, senderName: speaker, content: text, at: null }],
    });
    await engine.writeMemory(turn('ask', 'Kim', 'Lee, which bakery is your favourite? Mine is the bakery by the bridge.'));
    await engine.writeMemory(turn('hello', 'Kim', 'Good morning!'));
    await engine.writeMemory(turn('other', 'Jo', 'Nice weather.'));
    await engine.writeMemory(turn('lee', 'Lee', 'The bakery on Elm street, their rye bread.'));
    const answer = await engine.recall({ query: 'Which bakery does Lee like?', scope: { mode: 'global' }, explain: true });
    expect(ids(answer)[0]).toBe('lee');
    expect(answer.memories[0]?.explain?.bonuses.named).toBeGreaterThan(0);
    await engine.close();
  });

  it('lends no context to or from a memory made of many messages (a summary): it carries its own', async () => {
    temp = tempDir();
    const { provider, control } = controllableProvider();
    control.down = true;
    const engine = await openTestEngine(temp.dir, { embeddingProvider: provider });
    const message = (messageId: string, content: string) => ({ messageId, sessionId: 's1', role: 'user' as const, senderId: 'u', senderName: 'Kim', content, at: null });
    const summary = (id: string, text: string, n: number) => ({
      memoryId: id, text, sessionId: 's1', sources: [message(`${id}-1`, text), message(`${id}-${n}`, 'and more')],
    });
    // Session s1: a turn, a summary, a turn, a turn. Only 'married' is in the query.
    await engine.writeMemory({ memoryId: 't1', text: 'Kim: how long have you been married?', sessionId: 's1', sources: [message('m1', 'how long have you been married?')] });
    await engine.writeMemory(summary('sum', 'Kim and Lee talked about their weddings; married five years', 2));
    await engine.writeMemory({ memoryId: 't2', text: 'Lee: five years already, time flies', sessionId: 's1', sources: [message('m2', 'five years already')] });
    await engine.writeMemory({ memoryId: 't3', text: 'Kim: married in spring', sessionId: 's1', sources: [message('m3', 'married in spring')] });
    const answer = await engine.recall({ query: 'married', scope: { mode: 'global' }, topK: 5, explain: true });
    // t2 borrows from t3, the turn after it (0.5 × its score). The summary, t1's next, would borrow
    // 0.7 × t1's score if it were a turn; it borrows nothing, and keeps its own (weakest) BM25 evidence.
    expect(ids(answer)).toEqual(['t3', 't1', 'sum', 't2']);
    const context = answer.memories.map((m) => m.explain?.bonuses.context ?? 0);
    expect(context[3]).toBeCloseTo(0.5 * (answer.memories[0]?.score ?? 0), 12);
    expect([context[0], context[1], context[2]]).toEqual([0, 0, 0]);
    await engine.close();
  });

  it('refuses a bad request naming the field', async () => {
    temp = tempDir();
    const engine = await openTestEngine(temp.dir);
    await expect(engine.recall({ query: '  ', scope: { mode: 'global' } })).rejects.toMatchObject({ field: 'query' });
    await expect(engine.recall({ query: 'x', topK: 11 })).rejects.toMatchObject({ field: 'topK' });
    await expect(engine.recall({ query: 'x', scope: { mode: 'everyone' as never } })).rejects.toMatchObject({ field: 'scope.mode' });
    await engine.close();
  });
});
