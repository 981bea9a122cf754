import type { MemoryEngine } from '../../src/engine/engine.js';

/** A small evaluation set: memories and questions, each question with the ids that answer it. */
export interface EvalSet {
  readonly name: string;
  readonly memories: readonly { readonly id: string; readonly text: string }[];
  readonly queries: readonly { readonly query: string; readonly relevant: readonly string[] }[];
}

/** How the notes are written: with no session, or all in one session (notes of one conversation lend each other context). */
export type Layout = 'no-session' | 'one-session';

export interface SetRecall {
  readonly at5: number;
  readonly at10: number;
}

/** Recall@5 and @10 of each route alone and of the full pipeline, and the questions the full pipeline missed at 5. */
export interface SetFigures {
  readonly keyword: SetRecall;
  readonly vector: SetRecall;
  readonly full: SetRecall;
  readonly missedAt5: readonly string[];
}

/** Writes the set's memories in order, a second apart (the engine's clock); returns nothing but the store. */
export async function writeSet(engine: MemoryEngine, set: EvalSet, layout: Layout): Promise<void> {
  for (const m of set.memories) {
    await engine.writeMemory({ memoryId: m.id, text: m.text, sessionId: layout === 'one-session' ? `${set.name}-notes` : null });
  }
}

const share = (ranked: readonly string[], relevant: readonly string[], k: number): number => {
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
};

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

function recallOf(lists: readonly (readonly string[])[], set: EvalSet): SetRecall {
  return {
    at5: mean(set.queries.map((q, i) => share(lists[i] ?? [], q.relevant, 5))),
    at10: mean(set.queries.map((q, i) => share(lists[i] ?? [], q.relevant, 10))),
  };
}

/** Every question through the keyword route alone, the vector route alone and `engine.recall` (global scope, top 10). */
export async function evaluateSet(engine: MemoryEngine, set: EvalSet): Promise<SetFigures> {
  const keyword: string[][] = [];
  const vector: string[][] = [];
  const full: string[][] = [];
  for (const q of set.queries) {
    keyword.push(engine.indexes.keyword.search(q.query, { limit: 10 }).map((h) => h.memoryId));
    const [v] = await engine.provider.embed([q.query]);
    vector.push(v ? (await engine.indexes.vectors.search(v, 10)).map((h) => h.id) : []);
    full.push((await engine.recall({ query: q.query, scope: { mode: 'global' }, topK: 10 })).memories.map((m) => m.memoryId));
  }
  const missedAt5 = set.queries.filter((q, i) => share(full[i] ?? [], q.relevant, 5) < 1).map((q) => q.query);
  return { keyword: recallOf(keyword, set), vector: recallOf(vector, set), full: recallOf(full, set), missedAt5 };
}

/** The better of the two single routes at each k. */
export function bestRoute(f: SetFigures): SetRecall {
  return { at5: Math.max(f.keyword.at5, f.vector.at5), at10: Math.max(f.keyword.at10, f.vector.at10) };
}
