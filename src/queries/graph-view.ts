import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import type { GraphTable } from '../projections/graph.js';
import { statementCache } from './statements.js';

export interface GraphViewFilter {
  readonly sessionId?: string;
  readonly personaId?: string;
  /** The most connected nodes kept (by summed tie weight, then key). */
  readonly limit: number;
}

export interface ViewNode {
  readonly key: string;
  readonly type: string;
  readonly value: string;
  /** Summed weight of the node's ties in the view (self-loops included): how the view picks its nodes. */
  readonly degree: number;
}

export interface ViewEdge {
  readonly source: string;
  readonly target: string;
  readonly relation: string;
  readonly weight: number;
  readonly memories: number;
}

export interface GraphView {
  readonly nodes: ViewNode[];
  readonly edges: ViewEdge[];
  /** Nodes and edges in the filter before the limit. */
  readonly totalNodes: number;
  readonly totalEdges: number;
}

type NodeRow = { node_key: string; node_type: string; canonical_value: string };
type EdgeRow = { source_node: string; target_node: string; relation: string; weight: number; memory_count: number };

/** What the dashboard's graph view and a memory's page read from the graph projection. */
export function createGraphViewQueries(db: SqliteDatabase, table: (name: GraphTable) => string) {
  const prepare = statementCache(db);
  const scoped = (filter: GraphViewFilter): { where: string; params: string[] } => {
    const parts: string[] = [];
    const params: string[] = [];
    if (filter.sessionId !== undefined) (parts.push('session_id = ?'), params.push(filter.sessionId));
    if (filter.personaId !== undefined) (parts.push('persona_id = ?'), params.push(filter.personaId));
    return { where: parts.join(' AND '), params };
  };

  function edgesIn(filter: GraphViewFilter): EdgeRow[] {
    const { where, params } = scoped(filter);
    if (!where) return prepare<[], EdgeRow>(`SELECT source_node, target_node, relation, weight, memory_count FROM ${table('graph_edge_weights')}`).all();
    // A filtered view sums only the per-memory rows of the memories in scope.
    const sql = `SELECT source_node, target_node, relation, sum(weight) AS weight, count(*) AS memory_count FROM ${table('graph_edges')}
      WHERE source_memory IN (SELECT memory_id FROM ${table('graph_entries')} WHERE ${where})
      GROUP BY source_node, target_node, relation`;
    return prepare<string[], EdgeRow>(sql).all(...params);
  }

  function nodesIn(filter: GraphViewFilter, keys: Iterable<string>): NodeRow[] {
    const { where, params } = scoped(filter);
    const entryNodes = where
      ? `SELECT node_key FROM ${table('graph_entry_nodes')} WHERE entry_id IN (SELECT entry_id FROM ${table('graph_entries')} WHERE ${where})`
      : `SELECT node_key FROM ${table('graph_entry_nodes')}`;
    const sql = `SELECT node_key, node_type, canonical_value FROM ${table('graph_nodes')}
      WHERE node_key IN (SELECT value FROM json_each(?)) OR node_key IN (${entryNodes}) ORDER BY node_key`;
    return prepare<string[], NodeRow>(sql).all(JSON.stringify([...keys]), ...params);
  }

  return {
    /** The nodes and merged edges in a session/persona filter, the `limit` most connected nodes and the edges among them. */
    view(filter: GraphViewFilter): GraphView {
      const rows = edgesIn(filter);
      const degree = new Map<string, number>();
      for (const e of rows) {
        degree.set(e.source_node, (degree.get(e.source_node) ?? 0) + e.weight);
        if (e.target_node !== e.source_node) degree.set(e.target_node, (degree.get(e.target_node) ?? 0) + e.weight);
      }
      const all = nodesIn(filter, degree.keys()).map((n) => ({ key: n.node_key, type: n.node_type, value: n.canonical_value, degree: degree.get(n.node_key) ?? 0 }));
      const nodes = [...all].sort((a, b) => b.degree - a.degree || (a.key < b.key ? -1 : 1)).slice(0, filter.limit);
      const kept = new Set(nodes.map((n) => n.key));
      const edges = rows
        .filter((e) => kept.has(e.source_node) && kept.has(e.target_node))
        .map((e) => ({ source: e.source_node, target: e.target_node, relation: e.relation, weight: e.weight, memories: e.memory_count }));
      return { nodes, edges, totalNodes: all.length, totalEdges: rows.length };
    },

    /** One memory's graph entries (text and the nodes each mentions) and the edges it contributed. */
    ofMemory(memoryId: string) {
      const entries = prepare<[string], { entry_id: string; text: string }>(
        `SELECT entry_id, text FROM ${table('graph_entries')} WHERE memory_id = ? ORDER BY entry_id`,
      ).all(memoryId);
      const nodesOf = prepare<[string], NodeRow>(
        `SELECT n.node_key, n.node_type, n.canonical_value FROM ${table('graph_entry_nodes')} e JOIN ${table('graph_nodes')} n USING (node_key)
         WHERE e.entry_id = ? ORDER BY n.node_key`,
      );
      const edges = prepare<[string], EdgeRow>(
        `SELECT source_node, target_node, relation, weight, 1 AS memory_count FROM ${table('graph_edges')} WHERE source_memory = ?
         ORDER BY source_node, target_node, relation`,
      ).all(memoryId);
      return {
        entries: entries.map((e) => ({
          entryId: e.entry_id,
          text: e.text,
          nodes: nodesOf.all(e.entry_id).map((n) => ({ key: n.node_key, type: n.node_type, value: n.canonical_value })),
        })),
        edges: edges.map((e) => ({ source: e.source_node, target: e.target_node, relation: e.relation, weight: e.weight })),
      };
    },
  };
}

type GraphViewQueries = ReturnType<typeof createGraphViewQueries>;
