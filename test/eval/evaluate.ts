import type { MemoryEngine } from '../../src/engine/engine.js';
import { plainBm25 } from '../bench/plain-bm25.js';

/** A small evaluation set: memories and questions, each question with the ids that answer it. */
export interface EvalSet {
  readonly name: string;
  /**
   * Each memory's text; optionally the day it was written (days from the set's start, when the
   * clock is given to writeSet), and for a chat turn its session and speaker (written as a turn:
   * one source message, the speaker its participant).
   */
  readonly memories: readonly { readonly id: string; readonly text: string; readonly day?: number; readonly session?: string; readonly speaker?: string }[];
  readonly queries: readonly { readonly query: string; readonly relevant: readonly string[] }[];
  /** The day the questions are asked (writeSet leaves the clock there). */
  readonly askedOnDay?: number;
}

/** How the notes are written: with no session, or all in one session (notes of one conversation lend each other context). */
export type Layout = 'no-session' | 'one-session';

export interface SetRecall {
  readonly at5: number;
  readonly at10: number;
}

/** Recall@5 and @10 of plain BM25, of each route alone and of the full pipeline, and the questions the full pipeline missed at 5. */
export interface SetFigures {
  /** Plain FTS5 BM25 over the same texts (test/bench/plain-bm25.ts). */
  readonly bm25: SetRecall;
  readonly keyword: SetRecall;
  readonly vector: SetRecall;
  readonly full: SetRecall;
  readonly missedAt5: readonly string[];
}

/** A test clock: seconds since its start (testEnvironment's `calls`). */
export interface SetClock {
  calls: number;
}

const daySeconds = 86_400;

/**
 * Writes the set's memories in order, a second apart (the engine's clock); with `clock`, a memory
 * with a day is written on that day, and the clock is left on the set's question day.
 */
export async function writeSet(engine: MemoryEngine, set: EvalSet, layout: Layout, clock?: SetClock): Promise<void> {
  for (const m of set.memories) {
    if (clock && m.day !== undefined) clock.calls = Math.max(clock.calls, m.day * daySeconds);
    const notes = layout === 'one-session' ? `${set.name}-notes` : null;
    const turn = m.speaker && m.session
      ? { sessionId: m.session, participants: [m.speaker], sources: [{ messageId: m.id, sessionId: m.session, role: 'user' as const, senderId: m.speaker, senderName: m.speaker, content: m.text, at: null }] }
      : { sessionId: notes };
    await engine.writeMemory({ memoryId: m.id, text: m.text, ...turn });
  }
  if (clock && set.askedOnDay !== undefined) clock.calls = Math.max(clock.calls, set.askedOnDay * daySeconds);
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

/** The recall measured as `full`: `engine.recall` unless a settings variant is given. */
export type Recall = (request: { query: string; scope: { mode: 'global' }; topK: number }) => Promise<{ memories: readonly { memoryId: string }[] }>;

/** Every question through plain BM25, the keyword route alone, the vector route alone and `engine.recall` (global scope, top 10). */
export async function evaluateSet(engine: MemoryEngine, set: EvalSet, recall: Recall = (r) => engine.recall(r)): Promise<SetFigures> {
  const baseline = plainBm25(set.memories);
  const bm25 = set.queries.map((q) => baseline.search(q.query, 10).map((h) => h.id));
  baseline.close();
  const keyword: string[][] = [];
  const vector: string[][] = [];
  const full: string[][] = [];
  for (const q of set.queries) {
    keyword.push(engine.indexes.keyword.search(q.query, { limit: 10 }).map((h) => h.memoryId));
    const [v] = await engine.provider.embed([q.query]);
    vector.push(v ? (await engine.indexes.vectors.search(v, 10)).map((h) => h.id) : []);
    full.push((await recall({ query: q.query, scope: { mode: 'global' }, topK: 10 })).memories.map((m) => m.memoryId));
  }
  const missedAt5 = set.queries.filter((q, i) => share(full[i] ?? [], q.relevant, 5) < 1).map((q) => q.query);
  return { bm25: recallOf(bm25, set), keyword: recallOf(keyword, set), vector: recallOf(vector, set), full: recallOf(full, set), missedAt5 };
}

/** The best of plain BM25 and the two single routes at each k. */
export function bestRoute(f: SetFigures): SetRecall {
  return { at5: Math.max(f.bm25.at5, f.keyword.at5, f.vector.at5), at10: Math.max(f.bm25.at10, f.keyword.at10, f.vector.at10) };
}
