import { afterEach, describe, expect, it } from 'vitest';
import { stampEvents, type EventBody } from '../src/commands/decider.js';
import type { DomainEvent } from '../src/events/catalog.js';
import { streams } from '../src/events/streams.js';
import { atomKey, extractAtoms, reinforcementTtl } from '../src/extraction/atoms.js';
import { extractGraph } from '../src/extraction/graph.js';
import { atomsProjection } from '../src/projections/atoms.js';
import { documentsProjection } from '../src/projections/documents.js';
import { graphProjection } from '../src/projections/graph.js';
import { createAtomQueries, liveOnly } from '../src/queries/atoms.js';
import { createGraphQueries, SECOND_HOP_WEIGHT } from '../src/queries/graph.js';
import { testMetadata } from './support/decider-spec.js';
import { openTestStore, type TestStore } from './support/store.js';

interface Memory {
  readonly text: string;
  readonly sessionId?: string | null;
  readonly personaId?: string | null;
  readonly participants?: string[];
  readonly topics?: string[];
  readonly keyFacts?: string[];
  readonly importance?: number;
}

let store: TestStore;
let commands = 0;
afterEach(() => store?.close());

const open = () => {
  store = openTestStore([documentsProjection, graphProjection, atomsProjection]);
  return {
    graph: createGraphQueries(store.db, (name) => store.runner.liveTable('graph', name)),
    atoms: createAtomQueries(store.db, (name) => store.runner.liveTable('atoms', name)),
  };
};

const append = (streamId: string, bodies: EventBody[]) => {
  commands += 1;
  return store.log.append(streamId, stampEvents<DomainEvent>(bodies, testMetadata(commands)));
};

/** What the engine appends for a new memory: MemoryWritten, GraphEntriesLinked and its atoms, in one append. */
async function write(memoryId: string, m: Memory): Promise<void> {
  const data = {
    memoryId,
    text: m.text,
    importance: m.importance ?? 0.5,
    sessionId: m.sessionId === undefined ? 's1' : m.sessionId,
    personaId: m.personaId ?? null,
    userId: null,
    topics: m.topics ?? [],
    keyFacts: m.keyFacts ?? [],
    participants: m.participants ?? [],
    sentiment: null,
    sources: [],
  };
  const atoms = extractAtoms(data, testMetadata(commands + 1).now, (n) => `${memoryId}-a${n}`);
  await append(streams.memory(memoryId), [
    { type: 'MemoryWritten', schemaVersion: 2, data },
    { type: 'GraphEntriesLinked', schemaVersion: 1, data: extractGraph(data) },
    ...atoms.map((a): EventBody => ({ type: 'AtomExtracted', schemaVersion: 1, data: a })),
  ]);
}

const forget = (memoryId: string) =>
  append(streams.memory(memoryId), [{ type: 'MemoryForgotten', schemaVersion: 1, data: { memoryId, reason: 'asked' } }]);

const rows = (table: string, sql = 'SELECT * FROM {t}') => store.db.prepare(sql.replace('{t}', table)).all();
const graphRows = (table: string) => rows(store.runner.liveTable('graph', table));

describe('graph projection', () => {
  it('merges the same edge across memories and unmerges it when a memory is forgotten', async () => {
    const { graph } = open();
    await write('m1', { text: 'Alice and Bob drank tea', participants: ['Alice', 'Bob'], topics: ['tea'] });
    await write('m2', { text: 'alice and bob talked about tea and coffee', participants: ['alice', 'BOB'], topics: ['Tea', 'coffee'] });
    await store.runner.catchUp();
    expect(graph.edgeWeight('person:alice', 'person:bob', 'co_occurrence')).toEqual({ weight: 2, memoryCount: 2 });
    expect(graph.edgeWeight('person:alice', 'topic:tea', 'participant')).toEqual({ weight: 2, memoryCount: 2 });
    expect(graph.edgeWeight('person:alice', 'topic:coffee', 'participant')).toEqual({ weight: 1, memoryCount: 1 });
    expect(graphRows('graph_edges').filter((r) => (r as { relation: string }).relation === 'co_occurrence')).toHaveLength(3);

    await forget('m1');
    await store.runner.catchUp();
    expect(graph.edgeWeight('person:alice', 'person:bob', 'co_occurrence')).toEqual({ weight: 1, memoryCount: 1 });
    await forget('m2');
    await store.runner.catchUp();
    expect(graph.edgeWeight('person:alice', 'person:bob', 'co_occurrence')).toEqual({ weight: 0, memoryCount: 0 });
    for (const table of ['graph_nodes', 'graph_edges', 'graph_edge_weights', 'graph_entries', 'graph_entry_nodes', 'graph_entries_fts']) {
      expect(graphRows(table)).toEqual([]);
    }
  });

  it('searches with trigrams from three characters on, by substring below, inside the scope', async () => {
    const { graph } = open();
    await write('m1', { text: '我们参观了南京市长江大桥', topics: ['旅行'] });
    await write('m2', { text: 'Alice likes green tea', participants: ['Alice'] });
    await write('m3', { text: 'Alice likes green tea', sessionId: 's2' });
    await write('m4', { text: 'no session here, only tea', sessionId: null });
    await store.runner.catchUp();
    const ids = (hits: { memoryId: string }[]) => hits.map((h) => h.memoryId).sort();
    expect(ids(graph.search('长江大桥'))).toEqual(['m1']);
    expect(ids(graph.search('GREEN TEA'))).toEqual(['m2', 'm3']);
    expect(ids(graph.search('南京'))).toEqual(['m1']); // two characters: no trigram, substring instead
    expect(ids(graph.search('旅行'))).toEqual(['m1']); // a label in the entry line
    expect(ids(graph.search('te'))).toEqual(['m2', 'm3', 'm4']);
    expect(ids(graph.search('green 长江'))).toEqual([]);
    expect(ids(graph.search('alice te'))).toEqual(['m2', 'm3']);
    expect(ids(graph.search('Alice', { sessionId: 's1' }))).toEqual(['m2']);
    expect(ids(graph.search('te', { sessionId: 's2' }))).toEqual(['m3']);
    expect(ids(graph.search('tea', { sessionId: null }))).toEqual(['m4']);
    expect(ids(graph.search('tea', { personaId: 'p9' }))).toEqual([]);
    expect(ids(graph.search('"tea" OR'))).toEqual([]); // user text is literal, not FTS syntax
    expect(graph.search('   ')).toEqual([]);
  });

  it('expands a node to its neighbours, the second hop at 0.4', async () => {
    const { graph } = open();
    await write('m1', { text: 'Alice and Bob', participants: ['Alice', 'Bob'] });
    await write('m2', { text: 'Alice and Bob again', participants: ['Alice', 'Bob'] });
    await write('m3', { text: 'Bob and Carol at chess', participants: ['Bob', 'Carol'], topics: ['chess'] });
    await store.runner.catchUp();
    const one = graph.neighbours('person:alice');
    expect(one.map((n) => [n.nodeKey, n.hops, n.score, n.relations])).toEqual([['person:bob', 1, 2, ['co_occurrence']]]);
    const two = graph.neighbours('person:alice', { hops: 2 });
    expect(two.map((n) => [n.nodeKey, n.hops, n.score, n.via, n.nodeType, n.value])).toEqual([
      ['person:bob', 1, 2, null, 'person', 'bob'],
      ['person:carol', 2, SECOND_HOP_WEIGHT, 'person:bob', 'person', 'carol'],
      ['topic:chess', 2, SECOND_HOP_WEIGHT, 'person:bob', 'topic', 'chess'],
    ]);
    expect(graph.neighbours('topic:chess').map((n) => n.nodeKey)).toEqual(['person:bob', 'person:carol']);
    expect(graph.memoriesOf(['person:carol', 'person:alice'])).toEqual(['m1', 'm2', 'm3']);
  });

  it('finds the neighbours and memories of many nodes at once, as one node at a time would', async () => {
    const { graph } = open();
    await write('m1', { text: 'Alice and Bob', participants: ['Alice', 'Bob'], topics: ['tea'] });
    await write('m2', { text: 'Alice and Carol', participants: ['Alice', 'Carol'], topics: ['tea'], sessionId: 's2' });
    await write('m3', { text: 'Bob and Carol at chess', participants: ['Bob', 'Carol'], topics: ['chess', 'tea'], personaId: 'p1' });
    await write('m4', { text: 'Dave drinks tea', participants: ['Dave'], topics: ['tea'], sessionId: null });
    await store.runner.catchUp();
    const keys = ['person:alice', 'person:bob', 'topic:tea', 'topic:chess', 'person:nobody'];
    for (const hops of [1, 2] as const) {
      const many = graph.neighboursOfMany(keys, { hops, limit: 2 });
      for (const key of keys) expect(many.get(key)).toEqual(graph.neighbours(key, { hops, limit: 2 }).map(({ nodeType, value, ...path }) => path));
      // Merged over the keys, each node at its best path's score: what the recall's graph route reads.
      const best = new Map<string, number>();
      for (const path of [...many.values()].flat()) best.set(path.nodeKey, Math.max(best.get(path.nodeKey) ?? 0, path.score));
      expect(new Map([...graph.bestNeighbours(keys, hops, 2)].sort())).toEqual(new Map([...best].sort()));
      expect(graph.bestNeighbours(keys, hops, 2).size).toBeGreaterThan(2);
    }
    // Per node, the first memories by entry id in the scope, at most two.
    expect(graph.memoriesOfEach(keys, {}, 2)).toEqual(
      new Map([['person:alice', ['m1', 'm2']], ['person:bob', ['m1', 'm3']], ['topic:chess', ['m3']], ['topic:tea', ['m1', 'm2']]]),
    );
    expect(graph.memoriesOfEach(keys, { sessionId: 's1' }, 2)).toEqual(
      new Map([['person:alice', ['m1']], ['person:bob', ['m1', 'm3']], ['topic:chess', ['m3']], ['topic:tea', ['m1', 'm3']]]),
    );
    expect(graph.memoriesOfEach(keys, { sessionId: 's1', personaId: null }, 5)).toEqual(
      new Map([['person:alice', ['m1']], ['person:bob', ['m1']], ['topic:tea', ['m1']]]),
    );
    expect(graph.memoriesOfEach(['topic:tea'], { personaId: 'p1' }, 5)).toEqual(new Map([['topic:tea', ['m3']]]));
    expect(graph.memoriesOfEach(['topic:tea'], { sessionId: null }, 5)).toEqual(new Map([['topic:tea', ['m4']]]));
    for (const key of keys) {
      expect(graph.memoriesOfEach([key], { sessionId: 's1' }, 9).get(key) ?? []).toEqual(graph.memoriesOf([key], { sessionId: 's1' }));
    }
  });

  it('replaces what a memory linked when it is linked again after an update', async () => {
    const { graph } = open();
    await write('m1', { text: 'Alice plays chess', participants: ['Alice'], topics: ['chess'] });
    await append(streams.memory('m1'), [
      { type: 'MemoryUpdated', schemaVersion: 1, data: { memoryId: 'm1', changes: { text: 'Alice plays go', topics: ['go'] } } },
      { type: 'GraphEntriesLinked', schemaVersion: 1, data: extractGraph({ memoryId: 'm1', text: 'Alice plays go', sessionId: 's1', personaId: null, participants: ['Alice'], topics: ['go'], keyFacts: [] }) },
    ]);
    await store.runner.catchUp();
    expect(graph.search('chess')).toEqual([]);
    expect(graph.search('plays go').map((h) => h.entryId)).toEqual(['m1#0']);
    expect(graph.neighbours('person:alice').map((n) => n.nodeKey)).toEqual(['topic:go']);
    expect(graphRows('graph_nodes').map((r) => (r as { node_key: string }).node_key)).toEqual(['person:alice', 'topic:go']);
  });
});

describe('atoms projection', () => {
  it('stores extracted atoms and filters the live ones', async () => {
    const { atoms } = open();
    await write('m1', { text: '我明天打算去北京出差。我住在杭州。Alice is my sister', importance: 0, participants: ['Alice'] });
    await store.runner.catchUp();
    const all = atoms.ofMemory('m1');
    expect(all.map((a) => [a.atomId, a.atomType, a.status, a.reinforcementCount])).toEqual([
      ['m1-a0', 'plan', 'active', 0],
      ['m1-a1', 'fact', 'active', 0],
      ['m1-a2', 'relation', 'active', 0],
    ]);
    expect(all[2]?.entities).toEqual(['Alice']);
    expect(atoms.ofMemory('m1', liveOnly('2026-01-02T00:00:00.000Z'))).toHaveLength(3);
    // Three days on, the plan (2 days at importance 0) has expired; the fact and the relation live on.
    expect(atoms.ofMemory('m1', liveOnly('2026-01-04T00:00:00.000Z')).map((a) => a.atomType)).toEqual(['fact', 'relation']);
    expect(atoms.search('杭州').map((a) => a.atomId)).toEqual(['m1-a1']);
    expect(atoms.search('sisters', { sessionId: 's1' }).map((a) => a.atomId)).toEqual(['m1-a2']);
    expect(atoms.search('sisters', { sessionId: 's2' })).toEqual([]);
  });

  it('applies reinforcement and state changes, and forgets all atoms of a forgotten memory', async () => {
    const { atoms, graph } = open();
    await write('m1', { text: '我明天打算去北京出差。我住在杭州', importance: 0 });
    await store.runner.catchUp();
    const [plan] = atoms.withKey({ sessionId: 's1', personaId: null }, atomKey('我明天打算去北京出差！'));
    if (!plan) throw new Error('plan atom not found by key');
    const next = reinforcementTtl(plan, '2026-01-03T00:00:00.000Z');
    await append(streams.memory('m2'), [
      { type: 'AtomReinforced', schemaVersion: 2, data: { atomId: plan.atomId, byMemoryId: 'm2', reason: 'restated by memory m2', reinforcementCount: next.reinforcementCount, expiresAt: next.expiresAt } },
    ]);
    await append(streams.atom('m1-a1'), [
      { type: 'AtomStateChanged', schemaVersion: 1, data: { atomId: 'm1-a1', from: 'active', to: 'dormant', reason: 'tick', supersededBy: null } },
    ]);
    await store.runner.catchUp();
    expect(atoms.get(plan.atomId)).toMatchObject({ reinforcementCount: 1, expiresAt: '2026-01-06T00:00:00.000Z', status: 'active' });
    expect(atoms.ofMemory('m1', liveOnly('2026-01-04T00:00:00.000Z')).map((a) => a.atomId)).toEqual([plan.atomId]);
    expect(atoms.get('m1-a1')?.status).toBe('dormant');

    await forget('m1');
    await store.runner.catchUp();
    expect(atoms.ofMemory('m1').map((a) => [a.status, a.content, a.entities])).toEqual([
      ['forgotten', '', []],
      ['forgotten', '', []],
    ]);
    expect(atoms.ofMemory('m1', liveOnly('2026-01-01T00:00:00.000Z'))).toEqual([]);
    expect(atoms.search('杭州')).toEqual([]);
    expect(graph.search('北京')).toEqual([]);
    expect(graphRows('graph_entries')).toEqual([]);
    // Forgetting is final: a later state change does not bring an atom back.
    await append(streams.atom('m1-a1'), [
      { type: 'AtomStateChanged', schemaVersion: 1, data: { atomId: 'm1-a1', from: 'forgotten', to: 'active', reason: 'x', supersededBy: null } },
    ]);
    await store.runner.catchUp();
    expect(atoms.get('m1-a1')?.status).toBe('forgotten');
  });

  it('rebuilds both projections to the same digest', async () => {
    open();
    await write('m1', { text: '小明是我的好朋友。我们昨天去了上海', participants: ['小明'], topics: ['旅行'] });
    await write('m2', { text: 'Tomorrow I will meet Bob. Bob works at Google', participants: ['Bob'], keyFacts: ['Bob works at Google'] });
    await forget('m1');
    await store.runner.catchUp();
    for (const name of ['graph', 'atoms']) {
      const digest = store.runner.digest(name);
      expect((await store.runner.rebuild(name)).digest).toBe(digest);
    }
  });
});
