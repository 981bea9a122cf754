import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stampEvents, type EventBody } from '../src/commands/decider.js';
import type { DomainEvent } from '../src/events/catalog.js';
import { streams } from '../src/events/streams.js';
import { extractAtoms } from '../src/extraction/atoms.js';
import { extractGraph } from '../src/extraction/graph.js';
import { atomsProjection } from '../src/projections/atoms.js';
import { documentsProjection } from '../src/projections/documents.js';
import { graphProjection } from '../src/projections/graph.js';
import { testMetadata } from './support/decider-spec.js';
import { openTestStore, type TestStore } from './support/store.js';

const texts = [
  '我明天打算去北京出差。小明是我的好朋友',
  '我喜欢吃四川火锅；昨天我和同事李华在上海开会',
  '我妈妈住在杭州，在阿里巴巴工作',
  'Tomorrow I will fly to Tokyo with Bob. Alice is my sister',
  'I love green tea! Yesterday I met Carol in New York.',
  'Bob works at Google. Dave has a cat',
  '天气不错',
  'Alice likes tea\nAlice likes tea',
];
const people = ['Alice', 'alice', 'Bob', 'Carol', '小明', '李华'];
const topicPool = ['tea', 'Tea', 'travel', '旅行', '工作', 'chess'];
const factPool = ['Bob works at Google', 'Alice lives in Paris', '小明住在南京', 'Carol is 30'];
const statuses = ['active', 'dormant', 'superseded', 'expired', 'forgotten'] as const;

type Step =
  | { kind: 'write'; id: number; text: number; participants: string[]; topics: string[]; keyFacts: string[]; session: number | null; persona: number | null; importance: number }
  | { kind: 'update'; id: number; text: number; topics: string[] }
  | { kind: 'forget'; id: number }
  | { kind: 'reinforce'; atom: number }
  | { kind: 'state'; atom: number; to: (typeof statuses)[number] }
  | { kind: 'catchUp' };

const id = fc.integer({ min: 0, max: 5 });
const text = fc.integer({ min: 0, max: texts.length - 1 });
const pick = (pool: readonly string[]) => fc.subarray([...pool], { maxLength: 3 });

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('write' as const),
      id,
      text,
      participants: pick(people),
      topics: pick(topicPool),
      keyFacts: pick(factPool),
      session: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
      persona: fc.option(fc.integer({ min: 0, max: 1 }), { nil: null }),
      importance: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('update' as const), id, text, topics: pick(topicPool) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('forget' as const), id }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reinforce' as const), atom: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('state' as const), atom: fc.nat(), to: fc.constantFrom(...statuses) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'catchUp' as const }) },
);

interface Model {
  memories: Map<string, { status: 'live' | 'forgotten'; sessionId: string | null; personaId: string | null; participants: string[]; keyFacts: string[] }>;
  atoms: { atomId: string; count: number }[];
  /** What each memory linked last: the graph must be exactly this for the live memories. */
  graphs: Map<string, ReturnType<typeof extractGraph>>;
}

/** Plays steps the way the engine appends them; the model refuses what the decider would refuse. */
async function play(store: TestStore, steps: readonly Step[]): Promise<Model> {
  const model: Model = { memories: new Map(), atoms: [], graphs: new Map() };
  for (const [n, s] of steps.entries()) {
    const meta = testMetadata(n);
    const append = (streamId: string, bodies: EventBody[]) => store.log.append(streamId, stampEvents<DomainEvent>(bodies, meta));
    const atomsOf = (data: Parameters<typeof extractAtoms>[0], prefix: string): EventBody[] =>
      extractAtoms(data, meta.now, (i) => `${prefix}-a${i}`).map((a) => {
        model.atoms.push({ atomId: a.atomId, count: 0 });
        return { type: 'AtomExtracted', schemaVersion: 1, data: a };
      });
    if (s.kind === 'catchUp') await store.runner.catchUp();
    else if (s.kind === 'write') {
      const memoryId = `m${s.id}`;
      if (model.memories.has(memoryId)) continue;
      const data = {
        memoryId,
        text: texts[s.text] ?? 'x',
        importance: s.importance,
        sessionId: s.session === null ? null : `s${s.session}`,
        personaId: s.persona === null ? null : `p${s.persona}`,
        userId: null,
        topics: s.topics,
        keyFacts: s.keyFacts,
        participants: s.participants,
        sentiment: null,
        sources: [],
      };
      model.memories.set(memoryId, { status: 'live', ...data });
      model.graphs.set(memoryId, extractGraph(data));
      await append(streams.memory(memoryId), [
        { type: 'MemoryWritten', schemaVersion: 2, data },
        { type: 'GraphEntriesLinked', schemaVersion: 1, data: extractGraph(data) },
        ...atomsOf(data, memoryId),
      ]);
    } else if (s.kind === 'update') {
      const memoryId = `m${s.id}`;
      const m = model.memories.get(memoryId);
      if (m?.status !== 'live') continue;
      const data = { memoryId, text: texts[s.text] ?? 'x', importance: 0.5, topics: s.topics, ...m };
      model.graphs.set(memoryId, extractGraph(data));
      await append(streams.memory(memoryId), [
        { type: 'MemoryUpdated', schemaVersion: 1, data: { memoryId, changes: { text: data.text, topics: s.topics } } },
        { type: 'GraphEntriesLinked', schemaVersion: 1, data: extractGraph(data) },
        ...atomsOf(data, `${memoryId}-u${n}`),
      ]);
    } else if (s.kind === 'forget') {
      const memoryId = `m${s.id}`;
      const m = model.memories.get(memoryId);
      if (m?.status !== 'live') continue;
      m.status = 'forgotten';
      model.graphs.delete(memoryId);
      await append(streams.memory(memoryId), [{ type: 'MemoryForgotten', schemaVersion: 1, data: { memoryId, reason: 'test' } }]);
    } else {
      const atom = model.atoms[s.atom % Math.max(1, model.atoms.length)];
      if (!atom) continue;
      if (s.kind === 'reinforce') {
        atom.count += 1;
        const data = { atomId: atom.atomId, byMemoryId: `m${n}`, reason: 'test', reinforcementCount: atom.count, expiresAt: testMetadata(n + 7).now };
        await append(streams.atom(atom.atomId), [{ type: 'AtomReinforced', schemaVersion: 2, data }]);
      } else {
        const data = { atomId: atom.atomId, from: 'active' as const, to: s.to, reason: 'test', supersededBy: null };
        await append(streams.atom(atom.atomId), [{ type: 'AtomStateChanged', schemaVersion: 1, data }]);
      }
    }
  }
  return model;
}

const column = (store: TestStore, sql: string): string[] => (store.db.prepare(sql).pluck().all() as string[]).sort();

describe('graph and atoms projections over random memories', () => {
  it('rebuild gives the incremental digest, and the graph follows the live memories', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        const store = openTestStore([documentsProjection, graphProjection, atomsProjection]);
        try {
          const model = await play(store, steps);
          await store.runner.catchUp();
          const t = (name: string, table: string) => store.runner.liveTable(name, table);
          const docs = t('documents', 'documents');
          const live = column(store, `SELECT memory_id FROM ${docs} WHERE json_extract(metadata, '$.status') <> 'forgotten'`);
          const all = column(store, `SELECT memory_id FROM ${docs}`);
          expect(column(store, `SELECT DISTINCT memory_id FROM ${t('graph', 'graph_entries')}`)).toEqual(live);
          expect(column(store, `SELECT DISTINCT memory_id FROM ${t('graph', 'graph_entries_fts')}`)).toEqual(live);
          expect(column(store, `SELECT DISTINCT source_memory FROM ${t('graph', 'graph_edges')}`).every((m) => live.includes(m))).toBe(true);
          const atoms = t('atoms', 'memory_atoms');
          const atomMemories = column(store, `SELECT DISTINCT memory_id FROM ${atoms}`);
          expect(atomMemories.every((m) => all.includes(m))).toBe(true);
          const unforgotten = store.db
            .prepare(`SELECT a.atom_id FROM ${atoms} a JOIN ${docs} d USING (memory_id) WHERE json_extract(d.metadata, '$.status') = 'forgotten' AND a.status <> 'forgotten'`)
            .all();
          expect(unforgotten).toEqual([]);
          expect(column(store, `SELECT atom_id FROM ${t('atoms', 'memory_atoms_fts')}`)).toEqual(column(store, `SELECT atom_id FROM ${atoms} WHERE status NOT IN ('forgotten', 'expired')`));
          // Exactly what each live memory linked last: an update's re-link replaces, a forget removes.
          const expectedEdges = [...model.graphs].flatMap(([m, g]) => g.edges.map((e) => `${e.source}|${e.target}|${e.relation}|${m}|${e.weight}`)).sort();
          const edges = store.db.prepare(`SELECT source_node, target_node, relation, source_memory, weight FROM ${t('graph', 'graph_edges')}`).raw().all();
          expect(edges.map((r) => (r as unknown[]).join('|')).sort()).toEqual(expectedEdges);
          const expectedEntries = [...model.graphs.values()].flatMap((g) => g.entries.map((e) => `${e.entryId}|${e.text}`)).sort();
          expect(column(store, `SELECT entry_id || '|' || text FROM ${t('graph', 'graph_entries')}`)).toEqual(expectedEntries);
          const expectedNodes = [...new Set([...model.graphs.values()].flatMap((g) => g.nodes.map((n) => n.key)))].sort();
          expect(column(store, `SELECT node_key FROM ${t('graph', 'graph_nodes')}`)).toEqual(expectedNodes);
          // The merged weights are the sums of the per-memory edges, and no node is left unreferenced.
          const merged = store.db.prepare(`SELECT source_node, target_node, relation, weight, memory_count FROM ${t('graph', 'graph_edge_weights')} ORDER BY 1, 2, 3`).all();
          const summed = store.db
            .prepare(`SELECT source_node, target_node, relation, total(weight) AS weight, count(*) AS memory_count FROM ${t('graph', 'graph_edges')} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`)
            .all();
          expect(merged).toEqual(summed);
          // Adjacency holds every pair of distinct nodes an edge joins, both ways, with the merged weights of both directions.
          const adjacency = store.db.prepare(`SELECT node, neighbour, weight, relations FROM ${t('graph', 'graph_adjacency')} ORDER BY 1, 2`).all();
          const pairs = store.db
            .prepare(
              `SELECT node, neighbour, total(weight) AS weight, group_concat(DISTINCT relation) AS relations FROM (
                 SELECT source_node AS node, target_node AS neighbour, relation, weight FROM ${t('graph', 'graph_edge_weights')}
                 UNION ALL SELECT target_node, source_node, relation, weight FROM ${t('graph', 'graph_edge_weights')}
               ) WHERE node <> neighbour GROUP BY 1, 2 ORDER BY 1, 2`,
            )
            .all() as { node: string; neighbour: string; weight: number; relations: string }[];
          const byPair = (r: { node: string; neighbour: string; weight: number; relations: string }) =>
            `${r.node}|${r.neighbour}|${r.weight.toFixed(9)}|${r.relations.split(/[,\u001f]/).sort().join()}`;
          expect((adjacency as typeof pairs).map(byPair)).toEqual(pairs.map(byPair));
          const orphans = store.db
            .prepare(
              `SELECT node_key FROM ${t('graph', 'graph_nodes')} n WHERE NOT EXISTS (SELECT 1 FROM ${t('graph', 'graph_edges')} WHERE source_node = n.node_key OR target_node = n.node_key)
               AND NOT EXISTS (SELECT 1 FROM ${t('graph', 'graph_entry_nodes')} WHERE node_key = n.node_key)`,
            )
            .all();
          expect(orphans).toEqual([]);
          for (const name of ['graph', 'atoms']) {
            const incremental = store.runner.digest(name);
            expect((await store.runner.rebuild(name)).digest).toBe(incremental);
            expect(store.runner.digest(name)).toBe(incremental);
          }
        } finally {
          store.close();
        }
      }),
      { numRuns: 100 },
    );
  });
});
