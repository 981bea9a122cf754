import type { RouteSources } from './routes.js';
import type { RecallSettings } from './types.js';

/*
 * Pseudo-relevance feedback (RM3-style): the words the best keyword hits share, beyond the
 * query's own, often name what the question means but does not say ("adoption" beside
 * "research"). The top hits' stored tokens are weighted by how much of each hit they make up and
 * by the hit's score; the heaviest become a second keyword search, whose scores count `weight`
 * beside the first's (each on its list's best). One more FTS query over a few terms, not a scan.
 */

export type FeedbackSettings = Pick<RecallSettings, 'feedbackWeight' | 'feedbackDocs' | 'feedbackTerms'>;

type Keyword = RouteSources['keyword'];

/** Terms of the top hits by relevance-model weight: Σ over hits of score/best × tf/length; the query's own tokens and digits left out. */
export function feedbackTerms(
  hits: readonly { readonly id: string; readonly score: number }[],
  tokensOf: ReadonlyMap<string, readonly string[]>,
  queryTokens: ReadonlySet<string>,
  count: number,
): string[] {
  const best = Math.max(0, ...hits.map((h) => h.score));
  if (!(best > 0)) return [];
  const weight = new Map<string, number>();
  for (const hit of hits) {
    const tokens = tokensOf.get(hit.id) ?? [];
    for (const t of tokens) {
      if (queryTokens.has(t) || /^\p{N}+$/u.test(t) || [...t].length < 2) continue;
      weight.set(t, (weight.get(t) ?? 0) + hit.score / best / tokens.length);
    }
  }
  return [...weight].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, count).map(([t]) => t);
}

/** The keyword source with feedback: its search runs the query, then the expansion, and merges the two lists. */
export function withFeedback(keyword: Keyword, tokenize: (text: string) => string[], s: FeedbackSettings): Keyword {
  const tokensOf = keyword.tokensOf?.bind(keyword);
  if (!(s.feedbackWeight > 0) || !tokensOf) return keyword;
  return {
    ...keyword,
    search(query, filter) {
      const first = keyword.search(query, filter);
      const top = first.slice(0, s.feedbackDocs).map((h) => ({ id: h.memoryId, score: h.score }));
      const terms = feedbackTerms(top, tokensOf(top.map((h) => h.id)), new Set(tokenize(query)), s.feedbackTerms);
      if (terms.length === 0) return first;
      const second = keyword.search(terms.join(' '), filter);
      const best = (list: typeof first) => Math.max(0, ...list.map((h) => h.score));
      const [b1, b2] = [best(first), best(second)];
      if (!(b1 > 0) || !(b2 > 0)) return first;
      const merged = new Map<string, number>();
      for (const h of first) merged.set(h.memoryId, (1 - s.feedbackWeight) * h.score);
      for (const h of second) merged.set(h.memoryId, (merged.get(h.memoryId) ?? 0) + s.feedbackWeight * (h.score / b2) * b1);
      const limit = filter.limit ?? first.length;
      return [...merged]
        .map(([memoryId, score]) => ({ memoryId, score }))
        .sort((a, b) => b.score - a.score || (a.memoryId < b.memoryId ? -1 : 1))
        .slice(0, limit);
    },
  };
}
