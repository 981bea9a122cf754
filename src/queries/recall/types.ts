/** Which memories a recall may see. */
export type ScopeMode = 'legacy' | 'session' | 'user' | 'global';

export interface RecallScope {
  readonly mode: ScopeMode;
  readonly sessionId?: string | null;
  readonly personaId?: string | null;
  readonly userId?: string | null;
}

export interface RecallSettings {
  readonly topK: number; // default 5
  readonly maxK: number; // 10
  readonly candidateMultiplier: number; // recall_candidate_multiplier, 3
  readonly rerankCandidates: number; // 20
  readonly fusionMode: 'weighted' | 'rrf';
  readonly fusionBm25Weight: number; // 0.5
  readonly rrfK: number; // 60
  readonly fusionAgreementBonus: number; // 0.25
  /** Ranks at most this far apart count as agreement between keyword and vector. */
  readonly agreementRankWindow: number; // 3
  readonly relevanceWeight: number; // 0.5
  readonly importanceWeight: number; // 0.25
  readonly recencyWeight: number; // 0.25
  readonly decayRatePerDay: number; // importance_decay.decay_rate, 0.01
  readonly documentRouteWeight: number; // 0.65
  readonly graphRouteWeight: number; // 0.35
  readonly bothRoutesBonus: number; // 0.08
  readonly graphHops: 1 | 2; // 1
  readonly secondHopWeight: number; // 0.4
  readonly mmrLambda: number; // 0.7
  /** Share of a candidate's score lent to the memory written right after it in its session (its reply). */
  readonly contextNextWeight: number; // 0.7
  /** Share lent to the memory written right before it in its session. */
  readonly contextPreviousWeight: number; // 0.5
  /** How many turns away context reaches, each step lending its share of the last (1: the adjacent turns only). */
  readonly contextReach: number; // 2
  /** A memory whose participant the query names scores (1 + this) times as much (participants.ts). */
  readonly participantBonus: number; // 1
  /** A memory written in (or just after) a period the query names scores (1 + this) times as much (when.ts). */
  readonly timeBonus: number; // 0.5
  readonly routeTimeoutMs: number; // 10_000
  readonly maxInjectionChars: number; // 6000
  readonly maxMemoryChars: number; // 800
}

export const defaultRecallSettings: RecallSettings = {
  topK: 5,
  maxK: 10,
  candidateMultiplier: 3,
  rerankCandidates: 20,
  fusionMode: 'weighted',
  fusionBm25Weight: 0.5,
  rrfK: 60,
  fusionAgreementBonus: 0.25,
  agreementRankWindow: 3,
  relevanceWeight: 0.5,
  importanceWeight: 0.25,
  recencyWeight: 0.25,
  decayRatePerDay: 0.01,
  documentRouteWeight: 0.65,
  graphRouteWeight: 0.35,
  bothRoutesBonus: 0.08,
  graphHops: 1,
  secondHopWeight: 0.4,
  mmrLambda: 0.7,
  contextNextWeight: 0.7,
  contextPreviousWeight: 0.5,
  contextReach: 2,
  participantBonus: 1,
  timeBonus: 0.5,
  routeTimeoutMs: 10_000,
  maxInjectionChars: 6000,
  maxMemoryChars: 800,
};

/**
 * A named settings profile for archival recall, where a question may be about any time of a long
 * history ("when did ...", "what did ... say about ..."), rather than about what is going on now.
 * Recency stops counting (it ranks the latest turns over the relevant old ones), MMR keeps the
 * relevance order (near-duplicate turns are often all evidence), and BM25 counts 0.7 in the
 * document route (exact words carry more than a small offline embedding). Measured on LoCoMo in
 * test/bench/locomo; the defaults above stay the issue's.
 */
export const archivalRecallSettings: Partial<RecallSettings> = {
  recencyWeight: 0,
  mmrLambda: 1,
  fusionBm25Weight: 0.7,
};

/** One ranked list from one search (BM25, vector, graph keyword, ...), best first. */
export interface ScoredId {
  readonly id: string;
  readonly score: number;
}

/**
 * Why a memory was recalled: every score and weight on its way to the final score, in pipeline
 * order. routes: per route (`document`, `graph`) the raw scores (`.keyword.raw` BM25, `.vector.raw`
 * cosine, present when the list had the memory) and the weighted normalised parts; fused: each
 * route's fusion; weights: the route weights and each route's weighting (relevance, importance,
 * recency, score); combined: the cross-route score with the both-routes bonus; pool: after
 * conversation context and rerank; final = pool − bonuses.mmrPenalty, the score shown.
 */
export interface Explanation {
  readonly routes: Record<string, number>;
  readonly fused: Record<string, number>;
  readonly weights: Record<string, number>;
  readonly bonuses: Record<string, number>;
  readonly combined: number;
  readonly pool: number;
  readonly final: number;
  /** What the recall left out and why (a route skipped for a text the provider cannot embed). */
  readonly notes?: readonly string[];
  /** Routes that failed or timed out. */
  readonly failures?: readonly string[];
}

export interface RecalledMemory {
  readonly memoryId: string;
  readonly text: string;
  readonly score: number;
  readonly importance: number;
  readonly createdAt: string;
  readonly sessionId: string | null;
  /** Live atoms shown instead of the full text for atom-backed memories. */
  readonly facts: readonly string[];
  readonly explain?: Explanation;
}
