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

export type ContextSettings = Pick<RecallSettings, 'contextNextWeight' | 'contextPreviousWeight'>;

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
  for (const c of candidates) {
    const around = adjacent.get(c.id);
    if (!around) continue;
    lend(around.next, s.contextNextWeight * c.score);
    lend(around.previous, s.contextPreviousWeight * c.score);
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
