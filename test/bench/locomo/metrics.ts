/**
 * From per-question outcomes to the figures the LoCoMo benchmark reports: mean evidence recall per
 * mode, provider and category, latency quantiles, ingest throughput, and where recall is lost.
 */
import { mean, quantile } from '../support.js';
import { usedCategories } from './dataset.js';
import type { ConversationResult, EvidenceProfile, IngestFigure, ModeName, ProviderName, QuestionOutcome, Recalls } from './run.js';

/** Figures from the issue, measured on `turns` with a different harness; recall@10 over all four categories. */
export const references: readonly { mode: ModeName; provider: ProviderName | '-'; at10: number; what: string }[] = [
  { mode: 'keyword', provider: '-', at10: 0.6, what: 'SQLite FTS5 BM25 over raw turns' },
  { mode: 'vector', provider: 'use-lite', at10: 0.37, what: 'USE-lite vectors alone' },
  { mode: 'fusion', provider: 'use-lite', at10: 0.61, what: '50/50 min-max fusion (BM25 + USE-lite)' },
];
export const goalAt10 = 0.8;

export function referenceFor(mode: ModeName, provider: ProviderName | '-'): number | null {
  return references.find((r) => r.mode === mode && r.provider === provider)?.at10 ?? null;
}

export interface RecallRow {
  readonly mode: ModeName;
  readonly provider: ProviderName | '-';
  /** 1-4, or 0 for all four together. */
  readonly category: number;
  readonly questions: number;
  readonly recall: Recalls;
}

export interface LatencyRow {
  readonly mode: ModeName;
  readonly provider: ProviderName | '-';
  readonly queries: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly meanMs: number;
}

export interface IngestRow {
  readonly provider: ProviderName;
  readonly turns: number;
  readonly wallSeconds: number;
  readonly turnsPerSecond: number;
  /** Share of the ingest wall time spent in the provider's embed calls. */
  readonly embedShare: number;
}

export interface LossRow {
  readonly mode: ModeName;
  readonly provider: ProviderName | '-';
  readonly questions: number;
  /** Questions with recall@10 = 0, = 1; recall at the budget = 0. */
  readonly zeroAt10: number;
  readonly completeAt10: number;
  readonly zeroAtBudget: number;
  /** Mean memories that fit the budget. */
  readonly budgetMemories: number;
  /** Evidence turns by the rank of the first pool memory holding them (pool = top 100). */
  readonly evidence: number;
  readonly rank1to10: number;
  readonly rank11to20: number;
  readonly rank21to100: number;
  readonly notInTop100: number;
  /** Evidence turns in the top 10 of the pool, by kind of turn (share of that kind). */
  readonly hitAt10ByOverlap: Record<'text' | 'caption' | 'none', number>;
  readonly hitAt10Image: number;
  readonly hitAt10NoImage: number;
  /** Mean recall@10 by the question's number of evidence turns. */
  readonly at10ByEvidenceCount: Record<'1' | '2' | '3+', number>;
}

export interface ProfileSummary {
  readonly questions: number;
  readonly evidence: number;
  readonly overlap: Record<'text' | 'caption' | 'none', number>;
  readonly image: number;
  readonly questionsByEvidenceCount: Record<'1' | '2' | '3+', number>;
}

const share = (part: number, whole: number): number => (whole === 0 ? Number.NaN : part / whole);
const countBucket = (n: number): '1' | '2' | '3+' => (n <= 1 ? '1' : n === 2 ? '2' : '3+');

export const modeOrder: readonly ModeName[] = ['bm25', 'keyword', 'vector', 'fusion', 'full', 'archival'];

/** Every (mode, provider) pair present, keyword first. */
export function series(outcomes: readonly QuestionOutcome[]): { mode: ModeName; provider: ProviderName | '-' }[] {
  const seen = new Map<string, { mode: ModeName; provider: ProviderName | '-' }>();
  for (const o of outcomes) seen.set(`${o.mode}/${o.provider}`, { mode: o.mode, provider: o.provider });
  return [...seen.values()].sort((a, b) => modeOrder.indexOf(a.mode) - modeOrder.indexOf(b.mode) || a.provider.localeCompare(b.provider));
}

const of = (outcomes: readonly QuestionOutcome[], s: { mode: ModeName; provider: string }) => outcomes.filter((o) => o.mode === s.mode && o.provider === s.provider);

export function recallRows(outcomes: readonly QuestionOutcome[]): RecallRow[] {
  const rows: RecallRow[] = [];
  for (const s of series(outcomes)) {
    const mine = of(outcomes, s);
    for (const category of [...usedCategories, 0]) {
      const group = category === 0 ? mine : mine.filter((o) => o.category === category);
      if (group.length === 0) continue;
      const m = (key: keyof Recalls) => mean(group.map((o) => o.recall[key]));
      rows.push({ ...s, category, questions: group.length, recall: { at1: m('at1'), at5: m('at5'), at10: m('at10'), at20: m('at20'), budget: m('budget') } });
    }
  }
  return rows;
}

export function latencyRows(outcomes: readonly QuestionOutcome[]): LatencyRow[] {
  return series(outcomes).map((s) => {
    const ms = of(outcomes, s).map((o) => o.latencyMs);
    return { ...s, queries: ms.length, p50Ms: quantile(ms, 0.5), p95Ms: quantile(ms, 0.95), meanMs: mean(ms) };
  });
}

export function ingestRows(figures: readonly IngestFigure[]): IngestRow[] {
  const names = [...new Set(figures.map((f) => f.provider))];
  return names.map((provider) => {
    const mine = figures.filter((f) => f.provider === provider);
    const turns = mine.reduce((a, f) => a + f.turns, 0);
    const wallSeconds = mine.reduce((a, f) => a + f.wallSeconds, 0);
    const embedSeconds = mine.reduce((a, f) => a + f.embedSeconds, 0);
    return { provider, turns, wallSeconds, turnsPerSecond: turns / wallSeconds, embedShare: share(embedSeconds, wallSeconds) };
  });
}

function profileIndex(profiles: readonly EvidenceProfile[]): Map<string, EvidenceProfile> {
  return new Map(profiles.map((p) => [`${p.conversationId}#${p.question}`, p]));
}

export function lossRows(outcomes: readonly QuestionOutcome[], profiles: readonly EvidenceProfile[]): LossRow[] {
  const byQuestion = profileIndex(profiles);
  return series(outcomes).map((s) => {
    const mine = of(outcomes, s);
    let evidence = 0;
    const buckets = { r10: 0, r20: 0, r100: 0, none: 0 };
    const overlapAll = { text: 0, caption: 0, none: 0 };
    const overlapHit = { text: 0, caption: 0, none: 0 };
    const image = { all: 0, hit: 0 };
    const noImage = { all: 0, hit: 0 };
    const byCount: Record<'1' | '2' | '3+', number[]> = { '1': [], '2': [], '3+': [] };
    for (const o of mine) {
      const p = byQuestion.get(`${o.conversationId}#${o.question}`);
      byCount[countBucket(o.evidenceRanks.length)].push(o.recall.at10);
      for (const [i, rank] of o.evidenceRanks.entries()) {
        evidence += 1;
        const hit = rank !== null && rank <= 10;
        if (rank === null) buckets.none += 1;
        else if (rank <= 10) buckets.r10 += 1;
        else if (rank <= 20) buckets.r20 += 1;
        else buckets.r100 += 1;
        const e = p?.evidence[i];
        if (!e) continue;
        overlapAll[e.overlap] += 1;
        if (hit) overlapHit[e.overlap] += 1;
        const side = e.image ? image : noImage;
        side.all += 1;
        if (hit) side.hit += 1;
      }
    }
    return {
      ...s,
      questions: mine.length,
      zeroAt10: share(mine.filter((o) => o.recall.at10 === 0).length, mine.length),
      completeAt10: share(mine.filter((o) => o.recall.at10 === 1).length, mine.length),
      zeroAtBudget: share(mine.filter((o) => o.recall.budget === 0).length, mine.length),
      budgetMemories: mean(mine.map((o) => o.budgetCount)),
      evidence,
      rank1to10: share(buckets.r10, evidence),
      rank11to20: share(buckets.r20, evidence),
      rank21to100: share(buckets.r100, evidence),
      notInTop100: share(buckets.none, evidence),
      hitAt10ByOverlap: {
        text: share(overlapHit.text, overlapAll.text),
        caption: share(overlapHit.caption, overlapAll.caption),
        none: share(overlapHit.none, overlapAll.none),
      },
      hitAt10Image: share(image.hit, image.all),
      hitAt10NoImage: share(noImage.hit, noImage.all),
      at10ByEvidenceCount: { '1': mean(byCount['1']), '2': mean(byCount['2']), '3+': mean(byCount['3+']) },
    };
  });
}

export function profileSummary(profiles: readonly EvidenceProfile[]): ProfileSummary {
  const evidence = profiles.flatMap((p) => p.evidence);
  const count = (f: (e: (typeof evidence)[number]) => boolean) => share(evidence.filter(f).length, evidence.length);
  const q = (b: '1' | '2' | '3+') => profiles.filter((p) => countBucket(p.evidence.length) === b).length;
  return {
    questions: profiles.length,
    evidence: evidence.length,
    overlap: { text: count((e) => e.overlap === 'text'), caption: count((e) => e.overlap === 'caption'), none: count((e) => e.overlap === 'none') },
    image: count((e) => e.image),
    questionsByEvidenceCount: { '1': q('1'), '2': q('2'), '3+': q('3+') },
  };
}

export function collect(results: readonly ConversationResult[]) {
  const outcomes = results.flatMap((r) => r.outcomes);
  const profiles = results.flatMap((r) => r.profiles);
  return {
    outcomes,
    profiles,
    recall: recallRows(outcomes),
    latency: latencyRows(outcomes),
    ingest: ingestRows(results.flatMap((r) => r.ingest)),
    losses: lossRows(outcomes, profiles),
    profile: profileSummary(profiles),
  };
}
