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

/** relevanceWeight·relevance, importanceWeight·importance, recencyWeight·recency and their sum. */
export function finalScoreParts(signals: ScoreSignals, settings: WeightingSettings): FinalScoreParts {
  const relevance = settings.relevanceWeight * signals.relevance;
  const importance = settings.importanceWeight * signals.importance;
  const recency = settings.recencyWeight * signals.recency;
  return { relevance, importance, recency, final: relevance + importance + recency };
}

/**
 * The final score: relevanceWeight·relevance + importanceWeight·importance + recencyWeight·recency
 * (defaults 0.5 / 0.25 / 0.25).
 */
export function finalScore(signals: ScoreSignals, settings: WeightingSettings): number {
  return finalScoreParts(signals, settings).final;
}
