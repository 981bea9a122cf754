import type { SourceMessage } from '../../events/fields.js';
import type { ConsolidationSettings } from './settings.js';

const dayMs = 86_400_000;

export interface ConsolidationCandidate {
  readonly memoryId: string;
  readonly importance: number;
  readonly createdAt: string;
  readonly status: string;
  readonly sessionId: string | null;
  readonly personaId: string | null;
  readonly userId: string | null;
  /** Truthy when it was merged by a consolidation before: a restored original stays restored. */
  readonly consolidated?: number | boolean;
}

/** Two memories the vector index found alike, with their cosine similarity. */
export interface NeighbourPair {
  readonly a: string;
  readonly b: string;
  readonly score: number;
}

export interface ConsolidationGroup {
  /** Oldest first. */
  readonly memoryIds: readonly string[];
  readonly scope: { readonly sessionId: string | null; readonly personaId: string | null; readonly userId: string | null };
  /** The group's highest importance: a summary matters as much as its most important part. */
  readonly importance: number;
}

/** Active, never merged before, less important than `maxImportance`, and at least `minAgeDays` old at `nowMs`. */
export function isCandidate(m: ConsolidationCandidate, settings: ConsolidationSettings, nowMs: number): boolean {
  return m.status === 'active' && !m.consolidated && m.importance < settings.maxImportance && Date.parse(m.createdAt) <= nowMs - settings.minAgeDays * dayMs;
}

// Memories of different scopes never merge: a consolidated memory must not carry one user's words into another's scope.
const scopeKey = (m: ConsolidationCandidate): string => JSON.stringify([m.sessionId, m.personaId, m.userId]);

const byAge = (a: ConsolidationCandidate, b: ConsolidationCandidate): number =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.memoryId < b.memoryId ? -1 : a.memoryId > b.memoryId ? 1 : 0;

/** Union-find with path halving over string ids. */
function unionFind(ids: readonly string[]) {
  const parent = new Map(ids.map((id) => [id, id]));
  const find = (x: string): string => {
    let node = x;
    for (let p = parent.get(node) as string; p !== node; p = parent.get(node) as string) {
      const grand = parent.get(p) as string;
      parent.set(node, grand);
      node = grand;
    }
    return node;
  };
  const union = (a: string, b: string): void => {
    const [ra, rb] = [find(a), find(b)];
    // The smaller id roots the set, so the grouping does not depend on the pairs' order.
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  };
  return { find, union };
}

/** Same-session groups (memories without a session are never grouped by session). */
function sessionGroups(candidates: readonly ConsolidationCandidate[]): ConsolidationCandidate[][] {
  const groups = new Map<string, ConsolidationCandidate[]>();
  for (const m of candidates) {
    if (m.sessionId === null) continue;
    const key = scopeKey(m);
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()];
}

/** Connected components of the pairs at or above `similarity`, within one scope. */
function semanticGroups(candidates: readonly ConsolidationCandidate[], pairs: readonly NeighbourPair[], similarity: number): ConsolidationCandidate[][] {
  const byId = new Map(candidates.map((m) => [m.memoryId, m]));
  const sets = unionFind([...byId.keys()]);
  for (const { a, b, score } of pairs) {
    const [ma, mb] = [byId.get(a), byId.get(b)];
    if (ma && mb && a !== b && score >= similarity && scopeKey(ma) === scopeKey(mb)) sets.union(a, b);
  }
  const groups = new Map<string, ConsolidationCandidate[]>();
  for (const m of candidates) groups.set(sets.find(m.memoryId), [...(groups.get(sets.find(m.memoryId)) ?? []), m]);
  return [...groups.values()];
}

/**
 * The groups a consolidation run merges: candidates grouped by session or by similarity, groups
 * smaller than `minGroupSize` dropped, the largest first (ties: the oldest first), at most `maxGroups`.
 */
export function planConsolidation(
  memories: readonly ConsolidationCandidate[],
  settings: ConsolidationSettings,
  nowMs: number,
  pairs: readonly NeighbourPair[] = [],
): ConsolidationGroup[] {
  const candidates = memories.filter((m) => isCandidate(m, settings, nowMs)).sort(byAge);
  const grouped = settings.grouping === 'session' ? sessionGroups(candidates) : semanticGroups(candidates, pairs, settings.similarity);
  return grouped
    .filter((g) => g.length >= settings.minGroupSize)
    .map((g) => [...g].sort(byAge))
    .sort((x, y) => y.length - x.length || byAge(x[0] as ConsolidationCandidate, y[0] as ConsolidationCandidate))
    .slice(0, settings.maxGroups)
    .map((g) => {
      const first = g[0] as ConsolidationCandidate;
      return {
        memoryIds: g.map((m) => m.memoryId),
        scope: { sessionId: first.sessionId, personaId: first.personaId, userId: first.userId },
        importance: Math.max(...g.map((m) => m.importance)),
      };
    });
}

/** The union of the originals' source messages, each once (by message id), in the originals' order. */
export function unionSources(lists: readonly (readonly SourceMessage[])[]): SourceMessage[] {
  const seen = new Set<string>();
  const out: SourceMessage[] = [];
  for (const source of lists.flat()) {
    if (seen.has(source.messageId)) continue;
    seen.add(source.messageId);
    out.push(source);
  }
  return out;
}
