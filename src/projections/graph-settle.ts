import { settleAdjacency } from './graph-adjacency.js';
import type { ProjectionTx } from './projection.js';

export interface EdgeKey {
  readonly source: string;
  readonly target: string;
  readonly relation: string;
}

/** Nodes and merged edges touched while applying one event, with what the event added to (or took from) each edge. */
export interface Touched {
  readonly nodes: Set<string>;
  readonly edges: Map<string, EdgeKey & { weight: number; memories: number }>;
  /** Nodes the event's own rows refer to once it is applied (entry nodes of entries it wrote); the rest may be left unused. */
  readonly referenced: Set<string>;
}

export const newTouched = (): Touched => ({ nodes: new Set(), edges: new Map(), referenced: new Set() });

export const edgeKeyOf = (edge: EdgeKey): string => JSON.stringify([edge.source, edge.target, edge.relation]);

interface MergedEdge extends EdgeKey {
  weight: number;
  count: number;
  /** Whether the merged row exists (an edge whose memory count fell to 0 is deleted). */
  exists: boolean;
}

/**
 * Settles the merged edges, adjacency and nodes of a page of graph events with the result of
 * settling after every event, at a fraction of the statements. The merged rows move in memory
 * by the same float additions, in the same order, as one upsert per event would make (so the rows
 * are the same bytes whatever the page size); adjacency is a function of the merged rows, so it is
 * recomputed once per touched pair; a node can only leave when an event leaves it unreferenced,
 * so an event that may do so (a removal, a node nothing links) is settled at once, exactly, and
 * a node an event left linked by an edge or entry of its own needs no look-up at all.
 */
export function createGraphSettler(tx: ProjectionTx) {
  const merged = new Map<string, MergedEdge>();
  const dirty = new Set<MergedEdge>();
  const pairs: EdgeKey[] = [];
  // Nodes an event may have left unreferenced: the only ones a settle must look at.
  const atRisk = new Set<string>();

  const load = (key: string, edge: EdgeKey): MergedEdge => {
    let found = merged.get(key);
    if (found) return found;
    const row = tx.get<{ weight: number; memory_count: number }>(
      'SELECT weight, memory_count FROM {graph_edge_weights} WHERE source_node = ? AND target_node = ? AND relation = ?',
      edge.source, edge.target, edge.relation,
    );
    found = { source: edge.source, target: edge.target, relation: edge.relation, weight: row?.weight ?? 0, count: row?.memory_count ?? 0, exists: row !== undefined };
    merged.set(key, found);
    return found;
  };

  const flush = (): void => {
    for (const e of dirty) {
      if (e.exists) {
        tx.run(
          `INSERT INTO {graph_edge_weights} (source_node, target_node, relation, weight, memory_count) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT DO UPDATE SET weight = excluded.weight, memory_count = excluded.memory_count`,
          e.source, e.target, e.relation, e.weight, e.count,
        );
      } else {
        tx.run('DELETE FROM {graph_edge_weights} WHERE source_node = ? AND target_node = ? AND relation = ?', e.source, e.target, e.relation);
      }
    }
    dirty.clear();
    settleAdjacency(tx, pairs);
    pairs.length = 0;
    for (const key of [...atRisk].sort()) {
      const used = tx.get<{ used: number }>(
        `SELECT EXISTS (SELECT 1 FROM {graph_edge_weights} WHERE source_node = ?)
             OR EXISTS (SELECT 1 FROM {graph_edge_weights} WHERE target_node = ?)
             OR EXISTS (SELECT 1 FROM {graph_entry_nodes} WHERE node_key = ?) AS used`,
        key, key, key,
      );
      if (!used?.used) tx.run('DELETE FROM {graph_nodes} WHERE node_key = ?', key);
    }
    atRisk.clear();
  };

  return {
    /** One event's touches, in event order; `exact` settles at once (an erasure, or one event alone). */
    event(touched: Touched, exact = false): void {
      const linked = new Set(touched.referenced);
      for (const [key, delta] of touched.edges) {
        if (delta.weight === 0 && delta.memories === 0) continue;
        const e = load(key, delta);
        // As `weight = weight + excluded.weight` on conflict, or the inserted values on a new row.
        e.weight = e.exists ? e.weight + delta.weight : delta.weight;
        e.count = e.exists ? e.count + delta.memories : delta.memories;
        e.exists = e.count > 0;
        dirty.add(e);
        pairs.push(delta);
      }
      for (const e of touched.edges.keys()) {
        const state = merged.get(e);
        if (state?.exists) linked.add(state.source).add(state.target);
      }
      for (const key of touched.nodes) if (!linked.has(key)) atRisk.add(key);
      if (exact || atRisk.size > 0) flush();
    },
    /** Writes what the page's events left; call once at its end. */
    flush,
  };
}

export type GraphSettler = ReturnType<typeof createGraphSettler>;
