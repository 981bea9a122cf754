import { toEpochMs, type Instant } from './time.js';
import type { RecallSettings } from './types.js';

const dayMs = 86_400_000;

/**
 * Recency in (0, 1]: exp(−decayRatePerDay · ageDays), age measured from `createdAt` to `now`
 * (both parameters: this reads no clock). A creation at or after `now` gives 1; a negative rate
 * counts as 0 (no decay). An unparseable `createdAt` gives 0 (unknown age is not fresh).
 */
export function recencyScore(createdAt: Instant, now: Instant, decayRatePerDay: number): number {
  const created = toEpochMs(createdAt);
  const at = toEpochMs(now);
  if (Number.isNaN(created) || Number.isNaN(at)) return 0;
  const ageDays = (at - created) / dayMs;
  if (ageDays <= 0) return 1;
  return Math.exp(-Math.max(0, decayRatePerDay) * ageDays);
}

/** The three signals of a candidate's final score, each expected in [0, 1]. */
export interface ScoreSignals {
  readonly relevance: number;
  readonly importance: number;
  readonly recency: number;
}

export type WeightingSettings = Pick<RecallSettings, 'relevanceWeight' | 'importanceWeight' | 'recencyWeight'>;

/** Each weighted signal and their sum, for explain. */
export interface FinalScoreParts extends ScoreSignals {
  readonly final: number;
}

/**
 * The relevance share that importance and recency are paid in: the relevance clamped to [0, 1].
 * Importance and recency order memories that answer the query; they do not make a memory answer
 * it. Paid in full, they gave every memory a route merely lists (the weakest BM25 hit, a graph
 * neighbour, the last vector of the k×3 cut) up to 0.5 for nothing, enough to pass relevant but
 * older memories (LoCoMo `turns`, hash vectors: recall@10 0.584 -> 0.621 with this alone).
 */
export function relevanceShare(relevance: number): number {
  return Number.isNaN(relevance) ? 0 : Math.min(1, Math.max(0, relevance));
}

/**
 * relevanceWeight·relevance, and importanceWeight·importance and recencyWeight·recency each scaled
 * by `relevanceShare(relevance)`, and their sum.
 */
export function finalScoreParts(signals: ScoreSignals, settings: WeightingSettings): FinalScoreParts {
  const share = relevanceShare(signals.relevance);
  const relevance = settings.relevanceWeight * signals.relevance;
  const importance = settings.importanceWeight * signals.importance * share;
  const recency = settings.recencyWeight * signals.recency * share;
  return { relevance, importance, recency, final: relevance + importance + recency };
}

/**
 * The final score: relevanceWeight·relevance + (importanceWeight·importance +
 * recencyWeight·recency)·relevanceShare(relevance), weights 0.5 / 0.25 / 0.25 by default. A memory
 * of full relevance (1 or more) gets the plain weighted sum.
 */
export function finalScore(signals: ScoreSignals, settings: WeightingSettings): number {
  return finalScoreParts(signals, settings).final;
}
