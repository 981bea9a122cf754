import { afterEach, describe, expect, it } from 'vitest';
import { routeSources } from '../src/engine/recall.js';
import { graphRoute } from '../src/queries/recall/routes.js';
import type { ScopeFilter } from '../src/queries/recall/scope.js';
import { openTestEngine, tempDir } from './support/engine.js';

let temp: ReturnType<typeof tempDir>;
afterEach(() => temp?.remove());

const ids = (list: readonly { id: string }[]) => list.map((h) => h.id);

/**
 * Three memories with the same text in session s1, told apart only by their topic label, which
 * only the graph entry's text carries; a fourth, in s2, names the query word itself. The hash
 * provider embeds character 2- and 3-grams, so 'violinist' is nearest to 'violin', then 'viola'
 * (vi, io, vio), and shares nothing with 'plumbing'.
 */
async function violinStore() {
  temp = tempDir();
  const engine = await openTestEngine(temp.dir);
  const text = 'Practice every evening';
  for (const [memoryId, topic] of [['kim', 'violin'], ['lee', 'viola'], ['max', 'plumbing']] as const) {
    await engine.writeMemory({ memoryId, text, topics: [topic], sessionId: 's1' });
  }
  await engine.writeMemory({ memoryId: 'ova', text: 'Ova tunes pianos', topics: ['violinists'], sessionId: 's2' });
  const sources = routeSources(engine.indexes, engine.provider);
  const route = (query: string, filter: ScopeFilter, limit = 9) => graphRoute(sources, query, sources.embedQuery(query), filter, limit, 1);
  return { engine, route };
}

describe('the graph route vector search over graph entries', () => {
  it('ranks by meaning what the graph found, and adds no memory the graph did not find', async () => {
    const { engine, route } = await violinStore();
    // In s1 the trigram search over entries finds nothing for 'violinist': the entry vectors, near
    // 'violin' and 'viola', would only echo the document route's vectors, so they add nothing.
    expect(await route('violinist', { sessionId: 's1' })).toEqual({ keyword: [], vector: [], floors: {} });
    const global = await route('violinist', {});
    expect(ids(global.keyword)).toEqual(['ova']);
    expect(ids(global.vector)).toEqual(['ova']);
    const violin = await route('violin', {});
    // 'violin' finds kim's entry (label violin) and ova's (violinists); kim's entry is nearer in meaning.
    expect(ids(violin.keyword)).toEqual(['ova', 'kim']);
    expect(ids(violin.vector)).toEqual(['kim', 'ova']);
    await engine.close();
  });

  it('filters hits by the memory scope and status before the cut', async () => {
    const { engine, route } = await violinStore();
    expect(ids((await route('violin', {}, 1)).vector)).toEqual(['ova']);
    expect(ids((await route('violin', { sessionId: 's1' }, 1)).vector)).toEqual(['kim']);
    await engine.archiveMemory('kim');
    await engine.forgetMemory('lee');
    // Nothing live in s1 carries 'violin' any more (max's entry vector is near it, but the graph did not find max).
    expect(ids((await route('violin', { sessionId: 's1' }, 1)).vector)).toEqual([]);
    // A forgotten memory's entries leave the index; an archived one's stay, for a restore.
    expect([...engine.indexes.graphVectors.ids()].sort()).toEqual(['kim#0', 'max#0', 'ova#0']);
    await engine.close();
  });

  it('replaces a memory entry vector when its text changes', async () => {
    const { engine, route } = await violinStore();
    await engine.updateMemory('max', { text: 'Practice the violin every evening' });
    expect(ids((await route('violin', { sessionId: 's1' })).vector)).toEqual(['max', 'kim']);
    expect(engine.indexes.graphVectors.status()).toMatchObject({ size: 4, pending: 0 });
    await engine.close();
  });

  it('shows the graph route vector score in explain, and ranks by it when the documents tie', async () => {
    const { engine } = await violinStore();
    const answer = await engine.recall({ query: 'violin', scope: { mode: 'session', sessionId: 's1' }, topK: 3, explain: true });
    // The three texts are the same, so the document route ties them; only kim's entry (label violin)
    // is found by the graph, and counts its cosine (against 1, not against the list's best). lee and
    // max repeat kim's text word for word: MMR's penalty for the repeat takes all their little
    // evidence, and a hit left with no score is not returned.
    expect(answer.memories.map((m) => m.memoryId)).toEqual(['kim']);
    const routes = answer.memories[0]?.explain?.routes ?? {};
    expect(routes['graph.vector.raw']).toBeGreaterThan(0);
    expect(routes['graph.vector']).toBeCloseTo(0.5 * (routes['graph.vector.raw'] ?? 0), 12);
    expect(routes['document.vector']).toBeGreaterThan(0);
    await engine.close();
  });
});
