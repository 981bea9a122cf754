import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import type { GraphTable } from '../projections/graph.js';
import { statementCache } from './statements.js';

/** A neighbour two hops away counts this much of a direct one. */
export const SECOND_HOP_WEIGHT = 0.4;

/** A neighbour of one node, before its type and value are looked up. */
export interface NeighbourPath {
  readonly nodeKey: string;
  readonly hops: 1 | 2;
  /** Merged weight of the path: the edge for one hop, the weaker of the two edges for two. */
  readonly pathWeight: number;
  /** pathWeight × 1 for the first hop, × SECOND_HOP_WEIGHT for the second. */
  readonly score: number;
  /** Relations on the last edge of the path, sorted. */
  readonly relations: readonly string[];
  /** The first-hop node a second-hop neighbour was reached through (the strongest one). */
  readonly via: string | null;
}

export interface NeighbourOptions {
  readonly hops?: 1 | 2;
  /** Neighbours kept per node, best first (default 50). */
  readonly limit?: number;
}

interface MergedRow {
  origin: string;
  node: string;
  weight: number;
  relations: string;
}

const separator = '\u001f';
const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byScore = (a: NeighbourPath, b: NeighbourPath): number => b.score - a.score || a.hops - b.hops || byKey(a.nodeKey, b.nodeKey);

/**
 * Neighbours of many nodes in one statement (two with a second hop), where the recall route
 * used to run one per node: for each node, the same list a lookup of that node alone gives.
 */
export function createNeighbourQueries(db: SqliteDatabase, table: (name: GraphTable) => string) {
  const cached = statementCache(db);

  /** The `columns` of each key's best `LIMIT ?` edges (`k` the key, `a` the edge), read from the index in order. */
  const strongestSql = (columns: string): string => {
    const a = table('graph_adjacency');
    return `SELECT ${columns} FROM json_each(?) k
      JOIN ${a} a ON a.rowid IN (SELECT rowid FROM ${a} WHERE node = k.value ORDER BY weight DESC, neighbour LIMIT ?)`;
  };

  /** Each origin's neighbours (edges either way, merged per pair); with `top`, only its best `top`. */
  const edgesOf = (keys: readonly string[], top?: number): Map<string, Map<string, { weight: number; relations: string[] }>> => {
    const rows = (
      top === undefined
        ? cached(`SELECT node AS origin, neighbour AS node, weight, relations FROM ${table('graph_adjacency')} WHERE node IN (SELECT value FROM json_each(?))`).all(JSON.stringify(keys))
        : cached(strongestSql('k.value AS origin, a.neighbour AS node, a.weight, a.relations')).all(JSON.stringify(keys), top)
    ) as MergedRow[];
    const byOrigin = new Map<string, Map<string, { weight: number; relations: string[] }>>();
    for (const row of rows) {
      const edges = byOrigin.get(row.origin) ?? new Map<string, { weight: number; relations: string[] }>();
      edges.set(row.node, { weight: row.weight, relations: row.relations.split(separator) });
      byOrigin.set(row.origin, edges);
    }
    return byOrigin;
  };

  /** Nodes one hop from each key (either direction), and with `hops: 2` the nodes one hop further; per key, best first. */
  const neighboursOfMany = (keys: readonly string[], options: NeighbourOptions = {}): Map<string, NeighbourPath[]> => {
    const limit = options.limit ?? 50;
    const found = new Map<string, NeighbourPath[]>();
    const unique = [...new Set(keys)];
    if (unique.length === 0) return found;
    // One hop: SQLite keeps each origin's best `limit`, so a hub's thousand edges never reach JS.
    const first = edgesOf(unique, options.hops === 2 ? undefined : limit);
    const second = options.hops === 2 ? edgesOf([...new Set([...first.values()].flatMap((e) => [...e.keys()]))]) : new Map();
    for (const key of unique) {
      const direct = first.get(key) ?? new Map<string, { weight: number; relations: string[] }>();
      const paths = new Map<string, NeighbourPath>();
      for (const [node, e] of direct) {
        paths.set(node, { nodeKey: node, hops: 1, pathWeight: e.weight, score: e.weight, relations: e.relations, via: null });
      }
      for (const [mid, e1] of [...direct].sort(([a], [b]) => byKey(a, b))) {
        for (const [node, e2] of second.get(mid) ?? new Map<string, { weight: number; relations: string[] }>()) {
          if (node === key || direct.has(node)) continue;
          const pathWeight = Math.min(e1.weight, e2.weight);
          const previous = paths.get(node);
          if (previous && previous.pathWeight >= pathWeight) continue;
          paths.set(node, { nodeKey: node, hops: 2, pathWeight, score: pathWeight * SECOND_HOP_WEIGHT, relations: e2.relations, via: mid });
        }
      }
      found.set(key, [...paths.values()].sort(byScore).slice(0, limit));
    }
    return found;
  };

  type NodeMemory = { node_key: string; memory_id: string };

  return {
    /**
     * For each node, the memories of the first `perNode` entries (by entry id) that mention it in
     * the scope, in one statement. A scope with a session reads that session's entries and their
     * nodes; without one, each node's entries are read in index order up to `perNode`, so a node
     * that thousands of memories mention costs no more than a rare one.
     */
    memoriesOfEach(keys: readonly string[], scope: { sessionId?: string | null; personaId?: string | null }, perNode: number): Map<string, string[]> {
      const found = new Map<string, string[]>();
      const unique = [...new Set(keys)].sort(byKey);
      if (unique.length === 0 || perNode < 1) return found;
      const entries = table('graph_entries');
      const nodes = table('graph_entry_nodes');
      const persona = scope.personaId === undefined ? '' : ' AND e.persona_id IS ?';
      const personaParam = scope.personaId === undefined ? [] : [scope.personaId];
      let rows: NodeMemory[];
      if (scope.sessionId !== undefined) {
        // CROSS JOIN keeps the session's entries as the outer loop.
        const sql = `SELECT n.node_key, e.memory_id FROM ${entries} e CROSS JOIN ${nodes} n ON n.entry_id = e.entry_id
          WHERE e.session_id IS ?${persona} AND n.node_key IN (SELECT value FROM json_each(?)) ORDER BY n.node_key, n.entry_id`;
        rows = cached(sql).all(scope.sessionId, ...personaParam, JSON.stringify(unique)) as NodeMemory[];
      } else {
        // A correlated LIMIT per node: one statement however many nodes, each read in index order.
        const sql = `SELECT n.node_key, e.memory_id FROM json_each(?) k
          JOIN ${nodes} n ON n.rowid IN (
            SELECT n2.rowid FROM ${nodes} n2 JOIN ${entries} e ON e.entry_id = n2.entry_id
            WHERE n2.node_key = k.value${persona} ORDER BY n2.entry_id LIMIT ?)
          JOIN ${entries} e ON e.entry_id = n.entry_id
          ORDER BY n.node_key, n.entry_id`;
        rows = cached(sql).all(JSON.stringify(unique), ...personaParam, perNode) as NodeMemory[];
      }
      for (const row of rows) {
        const ids = found.get(row.node_key) ?? [];
        if (ids.length < perNode && !ids.includes(row.memory_id)) ids.push(row.memory_id);
        found.set(row.node_key, ids);
      }
      return found;
    },

    /**
     * The nodes within `hops` of any key, each with its best path's score over all keys (what
     * `neighboursOfMany` gives, best `limit` per key, merged): the recall's graph route needs no
     * more, and one hop reads only the neighbour and weight of each edge (no relations, no paths).
     */
    bestNeighbours(keys: readonly string[], hops: 1 | 2, limit: number): Map<string, number> {
      const best = new Map<string, number>();
      const keep = (node: string, score: number): void => {
        if (score > (best.get(node) ?? -Infinity)) best.set(node, score);
      };
      const unique = [...new Set(keys)];
      if (unique.length === 0) return best;
      if (hops === 2) {
        for (const paths of neighboursOfMany(unique, { hops, limit }).values()) for (const p of paths) keep(p.nodeKey, p.score);
        return best;
      }
      const rows = cached(strongestSql('a.neighbour, a.weight')).raw(true).all(JSON.stringify(unique), limit) as [string, number][];
      for (const [node, weight] of rows) keep(node, weight);
      return best;
    },

    neighboursOfMany,
  };
}
