import type { EventOf } from '../events/catalog.js';
import type { RecordedEvent } from '../events/log/event-log.js';
import { createGraphSettler, edgeKeyOf, newTouched, type EdgeKey, type GraphSettler, type Touched } from './graph-settle.js';
import type { Projection, ProjectionTx } from './projection.js';

/**
 * The memory graph: people, topics and facts as nodes; edges recorded per memory
 * (`graph_edges`) and merged across memories (`graph_edge_weights`, the sum of the per-memory
 * weights and how many memories carry the edge). The merged row of an edge is recomputed from
 * `graph_edges` whenever one of its per-memory rows changes, so it never drifts from them.
 *
 * Invariants after every page (the rows settling after each event would leave, graph-settle.ts):
 * every node is referenced by an edge or an entry (nodes left without either are removed), and
 * every merged weight equals the sum of its per-memory rows.
 */

type Linked = EventOf<'GraphEntriesLinked'>;

// Merged weights move by deltas: recounting an edge shared by many memories made rebuilds quadratic.
const touchEdge = (touched: Touched, edge: EdgeKey, weight: number, memories: number): void => {
  const key = edgeKeyOf(edge);
  const prior = touched.edges.get(key) ?? { source: edge.source, target: edge.target, relation: edge.relation, weight: 0, memories: 0 };
  touched.edges.set(key, { ...prior, weight: prior.weight + weight, memories: prior.memories + memories });
  touched.nodes.add(edge.source).add(edge.target);
};

function removeEntry(tx: ProjectionTx, entryId: string, touched: Touched): void {
  const entry = tx.get<{ fts_rowid: number }>('SELECT fts_rowid FROM {graph_entries} WHERE entry_id = ?', entryId);
  if (!entry) return;
  for (const { node_key } of tx.all<{ node_key: string }>('SELECT node_key FROM {graph_entry_nodes} WHERE entry_id = ?', entryId)) {
    touched.nodes.add(node_key);
  }
  tx.run('DELETE FROM {graph_entries_fts} WHERE rowid = ?', entry.fts_rowid);
  tx.run('DELETE FROM {graph_entry_nodes} WHERE entry_id = ?', entryId);
  tx.run('DELETE FROM {graph_entries} WHERE entry_id = ?', entryId);
}

/** Removes everything one memory contributed: its entries and its per-memory edges. */
function removeMemory(tx: ProjectionTx, memoryId: string, touched: Touched): void {
  const entries = tx.all<{ entry_id: string }>('SELECT entry_id FROM {graph_entries} WHERE memory_id = ? ORDER BY entry_id', memoryId);
  for (const { entry_id } of entries) removeEntry(tx, entry_id, touched);
  const edges = tx.all<{ source_node: string; target_node: string; relation: string; weight: number }>(
    'SELECT source_node, target_node, relation, weight FROM {graph_edges} WHERE source_memory = ?',
    memoryId,
  );
  for (const e of edges) touchEdge(touched, { source: e.source_node, target: e.target_node, relation: e.relation }, -e.weight, -1);
  tx.run('DELETE FROM {graph_edges} WHERE source_memory = ?', memoryId);
}

// An entry's FTS rowid from its event's position and place: the same in every replay, whatever an erasure removed.
const entryRowid = (position: bigint, index: number): number => {
  if (index >= 65_536) throw new Error(`GraphEntriesLinked at ${position} has more than 65536 entries`);
  return Number(position) * 65_536 + index;
};

function link(tx: ProjectionTx, e: RecordedEvent<Linked>, touched: Touched): void {
  const d = e.data;
  // A re-extraction (after an update) replaces what the memory linked before.
  removeMemory(tx, d.memoryId, touched);
  for (const node of d.nodes) {
    tx.run('INSERT INTO {graph_nodes} (node_key, node_type, canonical_value) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', node.key, node.nodeType, node.value);
    touched.nodes.add(node.key);
  }
  const linked = new Set<string>();
  for (const edge of d.edges) {
    const key = edgeKeyOf(edge);
    tx.run(
      `INSERT INTO {graph_edges} (source_node, target_node, relation, source_memory, weight) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT DO UPDATE SET weight = weight + excluded.weight`,
      edge.source,
      edge.target,
      edge.relation,
      d.memoryId,
      edge.weight,
    );
    // The same edge twice in one event adds weight, not a second memory.
    touchEdge(touched, edge, edge.weight, linked.has(key) ? 0 : 1);
    linked.add(key);
  }
  // The nodes of entries this event leaves in place (an entry id given twice removes its first rows).
  const given = new Map<string, number>();
  for (const entry of d.entries) given.set(entry.entryId, (given.get(entry.entryId) ?? 0) + 1);
  for (const entry of d.entries) {
    if (given.get(entry.entryId) === 1) for (const key of entry.nodeKeys) touched.referenced.add(key);
  }
  for (const [index, entry] of d.entries.entries()) {
    // An entry id is the memory's own (`<memoryId>#n`); should another memory reuse one, the later wins.
    removeEntry(tx, entry.entryId, touched);
    const rowid = entryRowid(e.globalPosition, index);
    tx.run(
      'INSERT INTO {graph_entries} (entry_id, memory_id, text, session_id, persona_id, fts_rowid) VALUES (?, ?, ?, ?, ?, ?)',
      entry.entryId,
      d.memoryId,
      entry.text,
      d.sessionId,
      d.personaId,
      rowid,
    );
    tx.run(
      'INSERT INTO {graph_entries_fts} (rowid, text, entry_id, memory_id, session_id, persona_id) VALUES (?, ?, ?, ?, ?, ?)',
      rowid,
      entry.text,
      entry.entryId,
      d.memoryId,
      d.sessionId,
      d.personaId,
    );
    for (const key of entry.nodeKeys) {
      tx.run('INSERT INTO {graph_entry_nodes} (entry_id, node_key) VALUES (?, ?) ON CONFLICT DO NOTHING', entry.entryId, key);
      touched.nodes.add(key);
    }
  }
}

function applyOne(tx: ProjectionTx, e: RecordedEvent, settler: GraphSettler, exact: boolean): void {
  if (e.type !== 'GraphEntriesLinked' && e.type !== 'MemoryForgotten') return;
  const touched = newTouched();
  if (e.type === 'GraphEntriesLinked') link(tx, e, touched);
  else removeMemory(tx, e.data.memoryId, touched);
  settler.event(touched, exact);
}

export const graphTables = ['graph_nodes', 'graph_edges', 'graph_edge_weights', 'graph_adjacency', 'graph_entries', 'graph_entry_nodes', 'graph_entries_fts'] as const;
export type GraphTable = (typeof graphTables)[number];

/** Graph of people, topics and facts, with one searchable entry per memory; extraction happens in the engine. */
export const graphProjection: Projection = {
  name: 'graph',
  // 4: graph_adjacency, each node's neighbours by merged weight, so recall reads the strongest without a sort.
  // 5: entry FTS rowids from event positions.
  version: 5,
  tables: [
    { name: 'graph_nodes', key: 'node_key' },
    { name: 'graph_edges', key: 'source_node, target_node, relation, source_memory' },
    { name: 'graph_edge_weights', key: 'source_node, target_node, relation' },
    { name: 'graph_adjacency', key: 'node, neighbour' },
    { name: 'graph_entries', key: 'entry_id' },
    { name: 'graph_entry_nodes', key: 'entry_id, node_key' },
    { name: 'graph_entries_fts', key: 'entry_id' },
  ],
  handles: ['GraphEntriesLinked', 'MemoryForgotten'],
  init(tx) {
    const edges = tx.table('graph_edges');
    const weights = tx.table('graph_edge_weights');
    const adjacency = tx.table('graph_adjacency');
    const entries = tx.table('graph_entries');
    const entryNodes = tx.table('graph_entry_nodes');
    tx.exec(`
      CREATE TABLE {graph_nodes} (
        node_key TEXT PRIMARY KEY,
        node_type TEXT NOT NULL,
        canonical_value TEXT NOT NULL
      );
      CREATE TABLE {graph_edges} (
        source_node TEXT NOT NULL,
        target_node TEXT NOT NULL,
        relation TEXT NOT NULL,
        source_memory TEXT NOT NULL,
        weight REAL NOT NULL,
        PRIMARY KEY (source_node, target_node, relation, source_memory)
      );
      CREATE INDEX ${edges}_memory ON {graph_edges} (source_memory);
      CREATE TABLE {graph_edge_weights} (
        source_node TEXT NOT NULL,
        target_node TEXT NOT NULL,
        relation TEXT NOT NULL,
        weight REAL NOT NULL,
        memory_count INTEGER NOT NULL,
        PRIMARY KEY (source_node, target_node, relation)
      );
      CREATE INDEX ${weights}_target ON {graph_edge_weights} (target_node);
      CREATE TABLE {graph_adjacency} (
        node TEXT NOT NULL,
        neighbour TEXT NOT NULL,
        weight REAL NOT NULL,
        relations TEXT NOT NULL,
        PRIMARY KEY (node, neighbour)
      );
      CREATE INDEX ${adjacency}_strongest ON {graph_adjacency} (node, weight DESC, neighbour);
      CREATE TABLE {graph_entries} (
        entry_id TEXT PRIMARY KEY,
        memory_id TEXT NOT NULL,
        text TEXT NOT NULL,
        session_id TEXT,
        persona_id TEXT,
        fts_rowid INTEGER NOT NULL UNIQUE
      );
      CREATE INDEX ${entries}_memory ON {graph_entries} (memory_id);
      CREATE INDEX ${entries}_fts_rowid ON {graph_entries} (fts_rowid);
      CREATE INDEX ${entries}_scope ON {graph_entries} (session_id, persona_id);
      CREATE TABLE {graph_entry_nodes} (
        entry_id TEXT NOT NULL,
        node_key TEXT NOT NULL,
        PRIMARY KEY (entry_id, node_key)
      );
      CREATE INDEX ${entryNodes}_node ON {graph_entry_nodes} (node_key, entry_id);
      CREATE VIRTUAL TABLE {graph_entries_fts} USING fts5(
        text, entry_id UNINDEXED, memory_id UNINDEXED, session_id UNINDEXED, persona_id UNINDEXED,
        tokenize = 'trigram'
      );
    `);
  },
  // Merged weights, adjacency and nodes settle once per page (graph-settle.ts), as they would after each event.
  apply(batch, tx) {
    const settler = createGraphSettler(tx);
    for (const event of batch) applyOne(tx, event, settler, batch.length === 1);
    settler.flush();
  },
  // A replay links nothing for an erased memory (its entries, nodes and edges read as []).
  eraseInPlace(erased, tx) {
    const touched = newTouched();
    for (const e of erased) if (e.type === 'GraphEntriesLinked') removeMemory(tx, e.data.memoryId, touched);
    createGraphSettler(tx).event(touched, true);
  },
};
