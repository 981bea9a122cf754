import type { RecallSettings, ScoredId } from './types.js';

/*
 * Fusion of one route's two ranked lists (keyword/BM25 and vector), best first. Pure: no I/O, no
 * clock. Every ordering breaks ties by id, so equal inputs always give equal outputs.
 */

/** Descending score, then ascending id. */
export const byScoreThenId = (a: ScoredId, b: ScoredId): number =>
  b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The first occurrence of each id, in list order (a list should not repeat an id; if it does, the best stays). */
function distinct(list: readonly ScoredId[]): ScoredId[] {
  const seen = new Set<string>();
  const out: ScoredId[] = [];
  for (const item of list) {
    if (seen.has(item.id)) continue;
    seen.add(item.id);
    out.push(item);
  }
  return out;
}

/**
 * Min-max normalisation of one query's scores to [0, 1]: the best becomes 1 and the worst 0.
 * A single element, or a list whose scores are all equal, gives 1 to everyone (they are all the
 * best there is). Over the finite scores; +Infinity gives 1, −Infinity and NaN give 0. Order and
 * ids are kept (a repeated id keeps its first entry).
 */
export function minMaxNormalize(list: readonly ScoredId[]): ScoredId[] {
  const items = distinct(list);
  let min = Infinity;
  let max = -Infinity;
  for (const { score } of items) {
    if (!Number.isFinite(score)) continue;
    min = Math.min(min, score);
    max = Math.max(max, score);
  }
  const span = max - min;
  const norm = (score: number): number => {
    if (Number.isNaN(score) || score === -Infinity) return 0;
    if (score === Infinity || span === 0) return 1;
    return (score - min) / span;
  };
  return items.map((item) => ({ id: item.id, score: norm(item.score) }));
}

/**
 * Normalisation against the background: (score − floor) / (best − floor), clamped to [0, 1], where
 * `floor` is what a memory the list does not hold would score (0 for BM25 when the list holds every
 * match; the deepest score fetched when it was cut). Unlike min-max, the list's worst hit keeps the
 * evidence it has (two keyword hits: the second is not "no evidence"), and a list whose best is
 * barely above the background stays low. No floor given: 0. `ceiling` (default: the list's best)
 * is the score that counts 1. A ceiling at or below the floor gives 0 to every hit; +Infinity gives 1.
 */
export function floorNormalize(list: readonly ScoredId[], floor = 0, ceiling?: number): ScoredId[] {
  const items = distinct(list);
  const finite = items.map((i) => i.score).filter((x) => Number.isFinite(x));
  const best = ceiling ?? (finite.length > 0 ? Math.max(...finite) : floor);
  const span = best - floor;
  const norm = (score: number): number => {
    if (score === Infinity) return 1;
    if (!Number.isFinite(score) || !(span > 0)) return 0;
    return Math.min(1, Math.max(0, (score - floor) / span));
  };
  return items.map((item) => ({ id: item.id, score: norm(item.score) }));
}

/*
 * Vector scores are cosines: their ceiling is 1 (the same meaning), not the list's best. Normalised
 * against the list's best, the nearest of many unrelated notes became 1, a full match, however far
 * it was; against 1, a weak provider's vectors (hash on paraphrases) stay weak evidence beside BM25.
 * BM25 has no ceiling: its list's best is the reference.
 */
const cosineCeiling = 1;

/** What a memory a list does not hold would score in it, per list (see floorNormalize). */
export interface ListFloors {
  readonly keyword?: number;
  readonly vector?: number;
}

/** A weight clamped to [0, 1]; NaN counts as 0.5. */
const unitWeight = (weight: number): number => (Number.isNaN(weight) ? 0.5 : Math.min(1, Math.max(0, weight)));

/** The two weighted parts per id: bm25Weight·norm(keyword) and (1−bm25Weight)·norm(vector); a missing side is 0. */
function weightedParts(keyword: readonly ScoredId[], vector: readonly ScoredId[], bm25Weight: number, floors: ListFloors = {}): Map<string, { keyword: number; vector: number }> {
  const w = unitWeight(bm25Weight);
  const parts = new Map<string, { keyword: number; vector: number }>();
  for (const { id, score } of floorNormalize(keyword, floors.keyword)) parts.set(id, { keyword: w * score, vector: 0 });
  for (const { id, score } of floorNormalize(vector, floors.vector, cosineCeiling)) {
    parts.set(id, { keyword: parts.get(id)?.keyword ?? 0, vector: (1 - w) * score });
  }
  return parts;
}

/**
 * Weighted fusion: bm25Weight·norm(keyword) + (1−bm25Weight)·norm(vector), each list normalised
 * on its own against its floor (floorNormalize), an id missing from a list counting 0 there. The
 * weight is clamped to [0, 1]. Result in [0, 1], best first.
 */
export function fuseWeighted(keyword: readonly ScoredId[], vector: readonly ScoredId[], bm25Weight: number, floors: ListFloors = {}): ScoredId[] {
  return [...weightedParts(keyword, vector, bm25Weight, floors)]
    .map(([id, p]) => ({ id, score: p.keyword + p.vector }))
    .sort(byScoreThenId);
}

/** 1/(k+rank) per id of one list, rank counted from 1 in list order. */
function rrfPart(list: readonly ScoredId[], k: number): Map<string, number> {
  return new Map(distinct(list).map((item, i) => [item.id, 1 / (k + i + 1)]));
}

/**
 * Reciprocal rank fusion: Σ over the lists of 1/(k + rank), rank counted from 1 in each list's
 * order (scores are ignored). Best first.
 */
export function fuseRrf(lists: readonly (readonly ScoredId[])[], k = 60): ScoredId[] {
  const total = new Map<string, number>();
  for (const list of lists) {
    for (const [id, part] of rrfPart(list, k)) total.set(id, (total.get(id) ?? 0) + part);
  }
  return [...total].map(([id, score]) => ({ id, score })).sort(byScoreThenId);
}

/**
 * The agreement bonus: every id found by both lists whose ranks (from 1, in list order) are at
 * most `window` apart gets `bonus`. Only those ids are in the map.
 */
export function agreementBonus(keyword: readonly ScoredId[], vector: readonly ScoredId[], window: number, bonus: number): Map<string, number> {
  const vectorRank = new Map(distinct(vector).map((item, i) => [item.id, i + 1]));
  const bonuses = new Map<string, number>();
  distinct(keyword).forEach((item, i) => {
    const rank = vectorRank.get(item.id);
    if (rank !== undefined && Math.abs(i + 1 - rank) <= window) bonuses.set(item.id, bonus);
  });
  return bonuses;
}

/**
 * The agreement bonus paid in the weaker list's evidence: two lists that agree on a memory each
 * only weakly (a word shared by every note, a vector barely above the background) agree on little.
 * Paid flat, the bonus lifted such pairs of noise 0.25 over a memory only one list found well.
 * The parts are the weighted ones: divided by their weights, each is its list's normalised score.
 * For rrf (weight null) the bonus is paid flat, as its parts are ranks, not evidence.
 */
function scaledAgreement(bonus: number, parts: { keyword: number; vector: number }, bm25Weight: number | null): number {
  if (bonus === 0 || bm25Weight === null) return bonus;
  const keyword = bm25Weight > 0 ? parts.keyword / bm25Weight : 1;
  const vector = bm25Weight < 1 ? parts.vector / (1 - bm25Weight) : 1;
  return bonus * Math.min(keyword, vector);
}

/** What made up one id's fused score: its keyword part, vector part and agreement bonus. */
export interface FusedParts {
  readonly keyword: number;
  readonly vector: number;
  readonly agreement: number;
}

export interface FusedScore {
  /** keyword + vector + agreement. */
  readonly fused: number;
  readonly parts: FusedParts;
}

export type FusionSettings = Pick<RecallSettings, 'fusionMode' | 'fusionBm25Weight' | 'rrfK' | 'fusionAgreementBonus' | 'agreementRankWindow'>;

/**
 * One route's fusion as settings choose it: `weighted` (see `fuseWeighted`) or `rrf` (see
 * `fuseRrf`, one part per list), plus `agreementBonus`. Per id, the fused score and its parts,
 * so explain can show each. The map iterates best first (ties by id).
 */
export function fuseRoute(keyword: readonly ScoredId[], vector: readonly ScoredId[], settings: FusionSettings, floors: ListFloors = {}): Map<string, FusedScore> {
  let parts: Map<string, { keyword: number; vector: number }>;
  if (settings.fusionMode === 'rrf') {
    const kw = rrfPart(keyword, settings.rrfK);
    const vec = rrfPart(vector, settings.rrfK);
    parts = new Map([...new Set([...kw.keys(), ...vec.keys()])].map((id) => [id, { keyword: kw.get(id) ?? 0, vector: vec.get(id) ?? 0 }]));
  } else {
    parts = weightedParts(keyword, vector, settings.fusionBm25Weight, floors);
  }
  const bonuses = agreementBonus(keyword, vector, settings.agreementRankWindow, settings.fusionAgreementBonus);
  const w = unitWeight(settings.fusionBm25Weight);
  const scored = [...parts].map(([id, p]) => {
    const agreement = scaledAgreement(bonuses.get(id) ?? 0, p, settings.fusionMode === 'rrf' ? null : w);
    return { id, score: p.keyword + p.vector + agreement, parts: { ...p, agreement } };
  });
  scored.sort(byScoreThenId);
  return new Map(scored.map((s) => [s.id, { fused: s.score, parts: s.parts }]));
}

/** A fused map (or any id → score map) as a ranked list, best first, ties by id. */
export function rankScores(scores: ReadonlyMap<string, number | { readonly fused: number } | { readonly score: number }>): ScoredId[] {
  return [...scores]
    .map(([id, v]) => ({ id, score: typeof v === 'number' ? v : 'fused' in v ? v.fused : v.score }))
    .sort(byScoreThenId);
}
