/**
 * One conversation of the LoCoMo benchmark: for each embedding provider a fresh engine in a fresh
 * temporary folder, every turn written through `engine.writeMemory`, then every question asked in
 * every retrieval mode. The result is plain data (it crosses process boundaries) and the same for
 * the same input, whichever process runs it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/engine/config.js';
import { createEmbeddingProvider, type EmbeddingProvider } from '../../../src/providers/embeddings/index.js';
import { createMemoryEngine, type MemoryEngine } from '../../../src/engine/engine.js';
import { tokenize } from '../../../src/projections/text/tokenizer.js';
import { isLiveAtom } from '../../../src/queries/recall/atom-policy.js';
import type { Conversation, Question, Turn } from './dataset.js';
import { ingestPipeline, type PipelineFigure } from './ingest-pipeline.js';
import { plainBm25 } from '../plain-bm25.js';
import {
  archivalRecall,
  benchEnvironment,
  forgetQueryVectors,
  fullRecallDetailed,
  fullRecallLabel,
  fullRecallMaxK,
  fusionRecall,
  ingestTurns,
  keywordSearch,
  sourceTurnIds,
  withTexts,
  vectorSearch,
  type ClockMode,
  type RankedMemory,
} from './pipeline.js';

export const ks = [1, 5, 10, 20] as const;
export type K = (typeof ks)[number];
/** The injection budget of a recall (RecallSettings.maxInjectionChars). */
export const budgetChars = 6000;
/** How many memories are fetched to fill the budget and to find the rank of each evidence turn. */
export const poolSize = 100;
/** The k whose call is timed for the latency figures. */
export const timedK = 10;

export type ProviderName = 'hash' | 'use-lite';
export const providerNames: readonly ProviderName[] = ['hash', 'use-lite'];
/** `fusion` is the plain 50/50 min-max fusion of the reference, beside `full` (the recall pipeline, or that same fusion while there is none). */
/** How a conversation becomes memories. */
export type IngestMode = 'turns' | 'pipeline';
export const ingestModes: readonly IngestMode[] = ['turns', 'pipeline'];
export type ModeName = 'bm25' | 'keyword' | 'vector' | 'fusion' | 'full' | 'archival';

export interface Recalls {
  readonly at1: number;
  readonly at5: number;
  readonly at10: number;
  readonly at20: number;
  readonly budget: number;
}

export interface QuestionOutcome {
  readonly conversationId: string;
  readonly question: number;
  readonly category: number;
  readonly mode: ModeName;
  /** `-` for keyword, which no provider touches. */
  readonly provider: ProviderName | '-';
  readonly recall: Recalls;
  /** Memories that fit the budget. */
  readonly budgetCount: number;
  /** Memories the pool call returned. */
  readonly poolCount: number;
  /** 1-based rank of the first memory in the pool whose sources hold each evidence turn; null when none does. */
  readonly evidenceRanks: readonly (number | null)[];
  readonly latencyMs: number;
}

/** What kind of turn each evidence id is, independent of any retrieval. */
export interface EvidenceProfile {
  readonly conversationId: string;
  readonly question: number;
  readonly category: number;
  readonly evidence: readonly {
    readonly id: string;
    readonly image: boolean;
    /** Whether the turn shares a token (not a speaker name) with the question: in its words, only in its image caption, or not at all. */
    readonly overlap: 'text' | 'caption' | 'none';
  }[];
}

export interface IngestFigure {
  readonly conversationId: string;
  readonly provider: ProviderName;
  readonly turns: number;
  readonly wallSeconds: number;
  /** Of which in the provider's embed calls. */
  readonly embedSeconds: number;
}

/** What the recall's atom policy sees at question time: memories whose atoms have all expired, dropped only when they have no sources. */
export interface AtomPolicyFigure {
  readonly memories: number;
  /** Memories whose atoms have all expired, and those of them the policy drops (the ones without sources). */
  readonly expired: number;
  readonly hidden: number;
  /** Evidence turns of the used questions (one per question and id), and those whose memory has only expired atoms. */
  readonly evidence: number;
  readonly evidenceExpired: number;
}

export interface ConversationResult {
  readonly conversationId: string;
  readonly fullLabels: Partial<Record<ProviderName, string>>;
  /** The recall pipeline's cap on k (its maxK), or null for the fusion: @20 of `full` is then @maxK. */
  readonly fullMaxK: number | null;
  readonly ingest: readonly IngestFigure[];
  readonly outcomes: readonly QuestionOutcome[];
  readonly profiles: readonly EvidenceProfile[];
  readonly atomPolicy: AtomPolicyFigure | null;
  /** What the summarizer wrote (ingest mode `pipeline`, first provider's engine), else null. */
  readonly pipeline: PipelineFigure | null;
}

/**
 * Counts the seconds a provider spends embedding. While questions are asked it also remembers the
 * vectors of the current question (the same text always gives the same vector), so the untimed
 * calls at other k do not embed it again; `newQuestion` forgets them before each timed call.
 */
function timedProvider(inner: EmbeddingProvider) {
  let ns = 0n;
  let memo: Map<string, Float32Array> | null = null;
  const provider: EmbeddingProvider = {
    fingerprint: inner.fingerprint,
    maxInputChars: inner.maxInputChars,
    async embed(texts) {
      if (memo && texts.every((t) => memo?.has(t))) return texts.map((t) => Float32Array.from(memo?.get(t) ?? []));
      const start = process.hrtime.bigint();
      try {
        const vectors = await inner.embed(texts);
        if (memo) for (const [i, t] of texts.entries()) if (vectors[i]) memo.set(t, Float32Array.from(vectors[i]));
        return vectors;
      } finally {
        ns += process.hrtime.bigint() - start;
      }
    },
  };
  return {
    provider,
    seconds: () => Number(ns) / 1e9,
    reset: () => {
      ns = 0n;
      memo = null;
    },
    newQuestion: () => {
      memo = new Map();
    },
  };
}

const providers = new Map<ProviderName, ReturnType<typeof timedProvider>>();
/** One provider object per process and name, so USE-lite loads its model once. */
function providerFor(name: ProviderName) {
  let p = providers.get(name);
  if (!p) providers.set(name, (p = timedProvider(createEmbeddingProvider({ provider: name }))));
  return p;
}

/** Warms a provider (USE-lite loads TensorFlow.js and its model) outside every timing. */
export async function warmProvider(name: ProviderName): Promise<void> {
  await providerFor(name).provider.embed(['warm up']);
}

function coverage(evidence: readonly string[], covered: ReadonlySet<string>): number {
  return evidence.filter((e) => covered.has(e)).length / evidence.length;
}

function coveredBy(engine: MemoryEngine, ranked: readonly RankedMemory[], sources: Map<string, string[]>): Set<string> {
  const ids = new Set<string>();
  for (const m of ranked) {
    let turnIds = sources.get(m.memoryId);
    if (!turnIds) sources.set(m.memoryId, (turnIds = sourceTurnIds(engine, m.memoryId)));
    for (const id of turnIds) ids.add(id);
  }
  return ids;
}

/** The ranked memories that fit the budget: taken in order while their texts sum to at most budgetChars. */
export function withinBudget(ranked: readonly RankedMemory[], budget = budgetChars): RankedMemory[] {
  const out: RankedMemory[] = [];
  let used = 0;
  for (const m of ranked) {
    if (used + m.text.length > budget) break;
    used += m.text.length;
    out.push(m);
  }
  return out;
}

interface Retrieved {
  readonly memories: readonly RankedMemory[];
  /** The ids the recall itself injected (its own 6,000-character budget), when it says. */
  readonly injected: readonly string[] | null;
}

interface Retriever {
  retrieve(question: string, k: number): Promise<Retrieved> | Retrieved;
  /** A ranking at k is the prefix of the ranking at a larger k (plain searches): one pool call serves every k. */
  readonly prefixStable: boolean;
  /** The most memories one call returns, or null when unbounded. */
  readonly maxK: number | null;
}

async function askAll(
  engine: MemoryEngine,
  conversation: Conversation,
  mode: ModeName,
  provider: ProviderName | '-',
  r: Retriever,
  /** Forgets remembered query vectors: each timed call embeds its question itself. */
  newQuestion: () => void,
): Promise<QuestionOutcome[]> {
  const sources = new Map<string, string[]>();
  const outcomes: QuestionOutcome[] = [];
  const cap = (k: number) => (r.maxK === null ? k : Math.min(k, r.maxK));
  for (const q of conversation.questions) {
    newQuestion();
    const start = process.hrtime.bigint();
    const timed = await r.retrieve(q.question, timedK);
    const latencyMs = Number(process.hrtime.bigint() - start) / 1e6;
    const pool = cap(poolSize) === timedK ? timed : await r.retrieve(q.question, cap(poolSize));
    const atK = async (k: K): Promise<readonly RankedMemory[]> => {
      if (r.prefixStable) return pool.memories.slice(0, k);
      if (cap(k) === timedK) return timed.memories;
      return (await r.retrieve(q.question, cap(k))).memories;
    };
    const recallAt = async (k: K) => coverage(q.evidence, coveredBy(engine, await atK(k), sources));
    const budgeted = pool.injected
      ? pool.memories.filter((m) => (pool.injected as readonly string[]).includes(m.memoryId))
      : withinBudget(pool.memories);
    const ranks = q.evidence.map((id) => {
      const at = pool.memories.findIndex((m) => coveredBy(engine, [m], sources).has(id));
      return at < 0 ? null : at + 1;
    });
    outcomes.push({
      conversationId: conversation.id,
      question: q.index,
      category: q.category,
      mode,
      provider,
      recall: {
        at1: await recallAt(1),
        at5: await recallAt(5),
        at10: await recallAt(10),
        at20: await recallAt(20),
        budget: coverage(q.evidence, coveredBy(engine, budgeted, sources)),
      },
      budgetCount: budgeted.length,
      poolCount: pool.memories.length,
      evidenceRanks: ranks,
      latencyMs,
    });
  }
  return outcomes;
}

function profile(conversation: Conversation, q: Question, turns: ReadonlyMap<string, Turn>): EvidenceProfile {
  const names = new Set(conversation.speakers.flatMap((s) => tokenize(s)));
  const asked = new Set(tokenize(q.question).filter((t) => !names.has(t)));
  const shares = (text: string): boolean => tokenize(text).some((t) => asked.has(t));
  return {
    conversationId: conversation.id,
    question: q.index,
    category: q.category,
    evidence: q.evidence.map((id) => {
      const turn = turns.get(id);
      const caption = turn?.blipCaption ?? null;
      const overlap = turn && shares(turn.text) ? 'text' : caption && shares(caption) ? 'caption' : 'none';
      return { id, image: caption !== null, overlap };
    }),
  };
}

function atomPolicyFigure(engine: MemoryEngine, conversation: Conversation, memoryOf: ReadonlyMap<string, string>, nowMs: number): AtomPolicyFigure {
  const expired = new Set<string>();
  const hidden = new Set<string>();
  for (const memoryId of new Set(memoryOf.values())) {
    const atoms = engine.indexes.atoms.ofMemory(memoryId);
    if (atoms.length === 0 || atoms.some((a) => isLiveAtom(a, nowMs))) continue;
    expired.add(memoryId);
    if (!engine.indexes.sources.has(memoryId)) hidden.add(memoryId);
  }
  const evidence = conversation.questions.flatMap((q) => q.evidence);
  return {
    memories: new Set(memoryOf.values()).size,
    expired: expired.size,
    hidden: hidden.size,
    evidence: evidence.length,
    evidenceExpired: evidence.filter((id) => expired.has(memoryOf.get(id) ?? '')).length,
  };
}

export interface RunOptions {
  readonly providers: readonly ProviderName[];
  /** `session` (default): memories are written at their session's date and questions asked an hour after the last session; `flat`: one clock second per id from 2026-01-01, as testEnvironment. */
  readonly clock?: ClockMode;
  /** `turns` (default): one memory per turn; `pipeline`: the conversation through the hooks and the summarizer (ingest-pipeline.ts), always on session dates. */
  readonly ingest?: IngestMode;
  readonly log?: (message: string) => void;
}

export async function runConversation(conversation: Conversation, options: RunOptions): Promise<ConversationResult> {
  const log = options.log ?? (() => undefined);
  const outcomes: QuestionOutcome[] = [];
  const ingest: IngestFigure[] = [];
  const fullLabels: Partial<Record<ProviderName, string>> = {};
  let fullMaxK: number | null = null;
  let atomPolicy: AtomPolicyFigure | null = null;
  let pipeline: PipelineFigure | null = null;
  const turns = new Map(conversation.turns.map((t) => [t.diaId, t]));
  for (const [n, name] of options.providers.entries()) {
    const timing = providerFor(name);
    const dir = mkdtempSync(join(tmpdir(), 'lmem-locomo-'));
    const clock = options.ingest === 'pipeline' ? 'session' : (options.clock ?? 'session');
    const env = benchEnvironment(`${conversation.id}-${name}`, clock === 'session' ? (conversation.turns[0]?.at ?? Date.UTC(2023, 0, 1)) : Date.UTC(2026, 0, 1));
    let engine: MemoryEngine | undefined;
    try {
      engine = await createMemoryEngine(loadConfig({ overrides: { dataDir: dir } }), { env, maintenance: false, embeddingProvider: timing.provider });
      const opened = engine;
      timing.reset();
      const start = process.hrtime.bigint();
      const ingested = options.ingest === 'pipeline' ? await ingestPipeline(opened, conversation, env) : { memoryOf: await ingestTurns(opened, conversation, env, clock), figure: null };
      const memoryOf = ingested.memoryOf;
      if (n === 0) pipeline = ingested.figure;
      const written = memoryOf.size;
      const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
      ingest.push({ conversationId: conversation.id, provider: name, turns: written, wallSeconds, embedSeconds: timing.seconds() });
      log(`${conversation.id} ${name}: ${written} turns in ${wallSeconds.toFixed(1)} s; ${conversation.questions.length} questions`);
      // Questions are asked an hour after the last session started.
      if (clock === 'session') env.setTime(conversation.turns.reduce((max, t) => Math.max(max, t.at ?? 0), 0) + 3_600_000);
      if (n === 0) atomPolicy = atomPolicyFigure(opened, conversation, memoryOf, env.now().getTime());

      const plain = (search: (q: string, k: number) => Promise<RankedMemory[]> | RankedMemory[]): Retriever => ({
        retrieve: async (q, k) => ({ memories: await search(q, k), injected: null }),
        prefixStable: true,
        maxK: null,
      });
      const newQuestion = () => {
        forgetQueryVectors(opened);
        timing.newQuestion();
      };
      const ask = async (mode: ModeName, r: Retriever) => {
        outcomes.push(...(await askAll(opened, conversation, mode, mode === 'keyword' || mode === 'bm25' ? '-' : name, r, newQuestion)));
      };
      // Keyword search touches no provider: once, on the first provider's engine.
      if (n === 0) {
        // The honest baseline: plain FTS5 BM25 over exactly the texts this engine indexed (issue 16).
        const baseline = plainBm25(opened.indexes.documents.list({ status: 'active', limit: null }).map((d) => ({ id: d.memoryId, text: d.text })));
        await ask('bm25', plain((q, k) => withTexts(opened, baseline.search(q, k).map((h) => h.id))));
        baseline.close();
        await ask('keyword', plain((q, k) => keywordSearch(opened, q, k)));
      }
      await ask('vector', plain((q, k) => vectorSearch(opened, q, k)));
      await ask('fusion', { retrieve: async (q, k) => ({ memories: await fusionRecall(opened, q, k), injected: null }), prefixStable: false, maxK: null });
      fullLabels[name] = fullRecallLabel(opened);
      fullMaxK = fullRecallMaxK(opened);
      await ask('full', { retrieve: (q, k) => fullRecallDetailed(opened, q, k), prefixStable: false, maxK: fullMaxK });
      const archival = archivalRecall(opened, env);
      await ask('archival', { retrieve: (q, k) => fullRecallDetailed(opened, q, k, archival), prefixStable: false, maxK: fullMaxK });
    } finally {
      await engine?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return {
    conversationId: conversation.id,
    fullLabels,
    fullMaxK,
    ingest,
    outcomes,
    profiles: conversation.questions.map((q) => profile(conversation, q, turns)),
    atomPolicy,
    pipeline,
  };
}
