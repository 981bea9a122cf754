import type { ProjectionTx } from './projection.js';

const pairSeparator = '\u001f';

/**
 * Recomputes the adjacency rows of one pair of nodes, both ways, from the merged weights of the
 * edges between them in either direction, so recall reads a node's strongest neighbours from an index.
 */
function settlePair(tx: ProjectionTx, a: string, b: string): void {
  const rows = tx.all<{ relation: string; weight: number }>(
    `SELECT relation, weight FROM {graph_edge_weights} WHERE source_node = ? AND target_node = ?
     UNION ALL SELECT relation, weight FROM {graph_edge_weights} WHERE source_node = ? AND target_node = ?`,
    a, b, b, a,
  );
  if (rows.length === 0) {
    tx.run('DELETE FROM {graph_adjacency} WHERE node = ? AND neighbour = ?', a, b);
    tx.run('DELETE FROM {graph_adjacency} WHERE node = ? AND neighbour = ?', b, a);
    return;
  }
  const weight = rows.reduce((sum, r) => sum + r.weight, 0);
  const relations = [...new Set(rows.map((r) => r.relation))].sort().join(pairSeparator);
  const upsert = `INSERT INTO {graph_adjacency} (node, neighbour, weight, relations) VALUES (?, ?, ?, ?)
    ON CONFLICT (node, neighbour) DO UPDATE SET weight = excluded.weight, relations = excluded.relations`;
  tx.run(upsert, a, b, weight, relations);
  tx.run(upsert, b, a, weight, relations);
}

/** Settles the adjacency of every pair of distinct nodes whose merged edges an event touched (after the merged weights moved). */
export function settleAdjacency(tx: ProjectionTx, edges: Iterable<{ readonly source: string; readonly target: string }>): void {
  const pairs = new Map<string, [string, string]>();
  for (const { source, target } of edges) {
    // A self-loop is never a neighbour.
    if (source === target) continue;
    const pair: [string, string] = source < target ? [source, target] : [target, source];
    pairs.set(pair.join(pairSeparator), pair);
  }
  for (const [a, b] of pairs.values()) settlePair(tx, a, b);
}
