import { byScoreThenId } from './fusion.js';
import type { RecallSettings, ScoredId } from './types.js';

/*
 * Conversation context. A turn of a conversation often means something only beside its
 * neighbours: the answer to "How long have you been married?" is the reply written right after
 * it, which shares no word with the question. So each candidate lends a share of its score to
 * the memories written just before and just after it in its session. Pure: the neighbours come in
 * as a map.
 */

/** The memories written just before and just after a memory in its session. */
export interface Adjacent {
  readonly previous: string | null;
  readonly next: string | null;
}

/**
 * Each memory's neighbours as `Adjacent` links from its window (the memories before and after it,
 * nearest first): the memory links to the nearest on each side, and each of those on to the next
 * one out, so context can walk outwards. A chain stops at the first memory `joins` refuses.
 */
export function chainsToAdjacent(
  windows: ReadonlyMap<string, { readonly before: readonly string[]; readonly after: readonly string[] }>,
  joins: (id: string) => boolean,
): Map<string, Adjacent> {
  const out = new Map<string, { previous: string | null; next: string | null }>();
  const link = (from: string, side: 'previous' | 'next', to: string | null): void => {
    const at = out.get(from) ?? { previous: null, next: null };
    if (at[side] === null) at[side] = to;
    out.set(from, at);
  };
  for (const [id, w] of windows) {
    if (!joins(id)) continue;
    for (const [side, chain] of [['previous', w.before], ['next', w.after]] as const) {
      let from = id;
      for (const to of chain) {
        if (!joins(to)) break;
        link(from, side, to);
        from = to;
      }
      link(id, side, null);
    }
  }
  return out;
}

export type ContextSettings = Pick<RecallSettings, 'contextNextWeight' | 'contextPreviousWeight'> & Partial<Pick<RecallSettings, 'contextReach'>>;

/** One candidate after context: its score and the part of it lent by a neighbour (0 when its own score is higher). */
export interface WithContext extends ScoredId {
  readonly context: number;
}

/**
 * Each candidate's score becomes the highest of its own and contextNextWeight × the score of
 * the memory right before it (it may be that memory's reply) and contextPreviousWeight × the
 * score of the memory right after it. A neighbour not among the candidates joins them with its
 * lent score. Best first, ties by id.
 */
export function withConversationContext(
  candidates: readonly ScoredId[],
  adjacent: ReadonlyMap<string, Adjacent>,
  s: ContextSettings,
): WithContext[] {
  const own = new Map(candidates.map((c) => [c.id, c.score]));
  const lent = new Map<string, number>();
  const lend = (id: string | null, score: number): void => {
    if (id !== null && score > 0 && score > (lent.get(id) ?? 0)) lent.set(id, score);
  };
  // Each step goes on in its own direction: the turn after the reply, the turn before the one before.
  const walk = (id: string | null, score: number, step: 'next' | 'previous', weight: number, left: number): void => {
    if (id === null || left === 0) return;
    lend(id, weight * score);
    walk(adjacent.get(id)?.[step] ?? null, weight * score, step, weight, left - 1);
  };
  const reach = Math.max(1, Math.floor(s.contextReach ?? 1));
  for (const c of candidates) {
    const around = adjacent.get(c.id);
    if (!around) continue;
    walk(around.next, c.score, 'next', s.contextNextWeight, reach);
    walk(around.previous, c.score, 'previous', s.contextPreviousWeight, reach);
  }
  const ids = new Set([...own.keys(), ...lent.keys()]);
  return [...ids]
    .map((id) => {
      const mine = own.get(id) ?? 0;
      const borrowed = lent.get(id) ?? 0;
      return { id, score: Math.max(mine, borrowed), context: borrowed > mine ? borrowed - mine : 0 };
    })
    .sort(byScoreThenId);
}
