import { createHash } from 'node:crypto';
import type { EventData } from '../events/catalog.js';

/**
 * Graph extraction from a memory's labels. Pure and deterministic: nodes sorted by key, edges by
 * (source, target, relation), one entry per memory. The engine appends the result as
 * GraphEntriesLinked in the same append as the memory's MemoryWritten (or MemoryUpdated).
 *
 * Edges do not name the memory (the projection records which memory carried them), so the same
 * edge from two memories merges. One relation per pair of node types:
 *   person → topic   'participant'    (the person takes part in talk about the topic)
 *   person → fact    'fact'           (a fact said with the person present)
 *   fact   → topic   'topic'          (the topic a fact belongs to)
 *   person — person, topic — topic  'co_occurrence' (smaller key → larger key, undirected)
 * Every edge has weight 1 per memory; the merged weight counts the memories.
 */

export type GraphData = EventData<'GraphEntriesLinked'>;
type GraphNode = GraphData['nodes'][number];
type GraphEdge = GraphData['edges'][number];
type NodeType = GraphNode['nodeType'];

export interface GraphInput {
  readonly memoryId: string;
  readonly text: string;
  readonly sessionId: string | null;
  readonly personaId: string | null;
  readonly participants: readonly string[];
  readonly topics: readonly string[];
  readonly keyFacts: readonly string[];
}

/** The canonical value of a label: NFKC, trimmed, inner whitespace collapsed, lower case. */
export function canonicalValue(label: string): string {
  return label.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();
}

const maxKeyLength = 200;

/** `person:alice`; a very long value keeps a prefix and a hash of the whole, so the key stays an id. */
export function nodeKey(nodeType: NodeType, label: string): string {
  const value = canonicalValue(label);
  const key = `${nodeType}:${value}`;
  if (key.length <= maxKeyLength) return key;
  const hash = createHash('sha256').update(value).digest('hex').slice(0, 16);
  return `${nodeType}:${value.slice(0, 150)}~${hash}`;
}

const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function nodesOf(nodeType: NodeType, labels: readonly string[]): GraphNode[] {
  const found = new Map<string, GraphNode>();
  for (const label of labels) {
    const value = canonicalValue(label);
    if (value.length > 0) found.set(nodeKey(nodeType, label), { key: nodeKey(nodeType, label), nodeType, value });
  }
  return [...found.values()].sort((a, b) => byKey(a.key, b.key));
}

function edgesBetween(sources: readonly GraphNode[], targets: readonly GraphNode[], relation: GraphEdge['relation']): GraphEdge[] {
  return sources.flatMap((s) => targets.map((t) => ({ source: s.key, target: t.key, relation, weight: 1 })));
}

function coOccurrences(nodes: readonly GraphNode[]): GraphEdge[] {
  return nodes.flatMap((a, i) => nodes.slice(i + 1).map((b) => ({ source: a.key, target: b.key, relation: 'co_occurrence' as const, weight: 1 })));
}

/** The entry's text: the memory text on one line, then its labels, so a label search finds it too. */
export function entryText(input: Pick<GraphInput, 'text' | 'participants' | 'topics' | 'keyFacts'>): string {
  const text = input.text.replace(/\s+/g, ' ').trim();
  const labels = [...input.participants, ...input.topics, ...input.keyFacts].map((l) => l.replace(/\s+/g, ' ').trim()).filter((l) => l.length > 0);
  const line = labels.length > 0 ? `${text} | ${labels.join(' · ')}` : text;
  return line.length > 0 ? line : '-';
}

export function extractGraph(input: GraphInput): GraphData {
  const people = nodesOf('person', input.participants);
  const topics = nodesOf('topic', input.topics);
  const facts = nodesOf('fact', input.keyFacts);
  const nodes = [...people, ...topics, ...facts].sort((a, b) => byKey(a.key, b.key));
  const edges = [
    ...edgesBetween(people, topics, 'participant'),
    ...edgesBetween(people, facts, 'fact'),
    ...edgesBetween(facts, topics, 'topic'),
    ...coOccurrences(people),
    ...coOccurrences(topics),
  ].sort((a, b) => byKey(a.source, b.source) || byKey(a.target, b.target) || byKey(a.relation, b.relation));
  return {
    memoryId: input.memoryId,
    sessionId: input.sessionId,
    personaId: input.personaId,
    entries: [{ entryId: `${input.memoryId}#0`, text: entryText(input), nodeKeys: nodes.map((n) => n.key) }],
    nodes,
    edges,
  };
}
