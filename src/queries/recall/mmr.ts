import { tokenize } from '../../projections/text/tokenizer.js';

/*
 * Maximal marginal relevance: a diverse top-k from scored candidates. Pure and deterministic:
 * every tie goes to the smaller id.
 */

export interface MmrCandidate {
  readonly id: string;
  readonly score: number;
  readonly text?: string;
  readonly vector?: Float32Array;
}

/** Similarity of two candidates, expected in [0, 1] (a negative cosine only helps the candidate). */
export type Similarity<T extends MmrCandidate = MmrCandidate> = (a: T, b: T) => number;

/** Cosine similarity; 0 when the lengths differ or either vector is all zeros. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

const jaccard = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const token of a) if (b.has(token)) shared += 1;
  return shared / (a.size + b.size - shared);
};

/**
 * Jaccard similarity of the two texts' token sets, from the shared `tokenize()` (jieba words and
 * character bigrams for Chinese, so unspaced text compares well; stemmed words for English).
 * Two texts without tokens give 0.
 */
export function tokenSimilarity(a: string, b: string): number {
  return jaccard(new Set(tokenize(a)), new Set(tokenize(b)));
}

// Token sets by text: recalls keep meeting the same memories, and tokenising (jieba) is the cost.
// Bounded; emptied when full, which only costs a re-tokenisation.
const tokenCache = new Map<string, ReadonlySet<string>>();
const tokenCacheLimit = 4096;
const tokensOf = (candidate: MmrCandidate): ReadonlySet<string> => {
  const text = candidate.text ?? '';
  let tokens = tokenCache.get(text);
  if (!tokens) {
    if (tokenCache.size >= tokenCacheLimit) tokenCache.clear();
    tokens = new Set(tokenize(text));
    tokenCache.set(text, tokens);
  }
  return tokens;
};

/**
 * The default similarity: cosine of the vectors when both candidates have one of the same
 * length, else Jaccard of their texts' tokens when both have text, else 0.
 */
export function candidateSimilarity(a: MmrCandidate, b: MmrCandidate): number {
  if (a.vector && b.vector && a.vector.length === b.vector.length && a.vector.length > 0) return cosine(a.vector, b.vector);
  if (a.text !== undefined && b.text !== undefined) return jaccard(tokensOf(a), tokensOf(b));
  return 0;
}

/** One MMR pick and its similarity to the picks before it (0 for the first). */
export interface MmrPick<T> {
  readonly candidate: T;
  readonly similarity: number;
}

/**
 * Classic MMR: the first pick is the best score; each next pick maximises
 * λ·score − (1−λ)·max(similarity to the picks so far). λ = 1 is the plain score order. Returns at
 * most k candidates in pick order. Scores are used as given (normalise them first if their scale
 * differs from the similarity's). Each pair's similarity is computed at most once.
 */
export function mmrSelect<T extends MmrCandidate>(
  candidates: readonly T[],
  k: number,
  lambda = 0.7,
  similarity: Similarity<T> = candidateSimilarity,
): T[] {
  return mmrPicks(candidates, k, lambda, similarity).map((p) => p.candidate);
}

/** `mmrSelect` with each pick's similarity to the earlier picks, from which its penalty follows. */
export function mmrPicks<T extends MmrCandidate>(
  candidates: readonly T[],
  k: number,
  lambda = 0.7,
  similarity: Similarity<T> = candidateSimilarity,
): MmrPick<T>[] {
  const pool = [...candidates].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const maxSim = pool.map(() => -Infinity);
  const taken = pool.map(() => false);
  const picks: MmrPick<T>[] = [];
  const limit = Math.min(Math.max(0, Math.floor(k)), pool.length);
  while (picks.length < limit) {
    let best = -1;
    let bestValue = -Infinity;
    pool.forEach((candidate, i) => {
      if (taken[i]) return;
      const value = picks.length === 0 ? candidate.score : lambda * candidate.score - (1 - lambda) * (maxSim[i] ?? 0);
      // The pool is sorted by id, so a strict > keeps the smaller id on a tie.
      if (best === -1 || value > bestValue) {
        best = i;
        bestValue = value;
      }
    });
    const pick = pool[best];
    if (pick === undefined) break;
    taken[best] = true;
    picks.push({ candidate: pick, similarity: picks.length === 0 ? 0 : Math.max(0, maxSim[best] ?? 0) });
    pool.forEach((candidate, i) => {
      if (!taken[i]) maxSim[i] = Math.max(maxSim[i] ?? -Infinity, similarity(candidate, pick));
    });
  }
  return picks;
}
