/**
 * How the LoCoMo benchmark writes conversations into the engine and reads them back: the `turns`
 * ingest mode (one memory per dialogue turn, through `engine.writeMemory`) and the three retrieval
 * modes (`keyword`, `vector`, `full`). Nothing here knows a question or a conversation by name.
 */
import type { Environment } from '../../../src/engine/clock.js';
import type { MemoryEngine } from '../../../src/engine/engine.js';
import { createRecall } from '../../../src/engine/recall.js';
import { archivalRecallSettings, defaultRecallSettings } from '../../../src/queries/recall/types.js';
import type { Conversation, Turn } from './dataset.js';

/** One retrieved memory, best first. */
export interface RankedMemory {
  readonly memoryId: string;
  readonly text: string;
}

// ---------------------------------------------------------------------------------------------
// Ingest.

/** The memory text of one turn: speaker, words, the image caption when there is one, the session date. */
export function turnMemoryText(turn: Turn): string {
  const image = turn.blipCaption ? ` [image: ${turn.blipCaption}]` : '';
  return `${turn.speaker}: ${turn.text}${image} (${turn.dateTime})`;
}

/** A deterministic clock and id source like testEnvironment, whose time the ingest sets per turn. */
export function benchEnvironment(prefix: string, start: number): Environment & { setTime(ms: number): void } {
  let base = start;
  let tick = 0;
  let ids = 0;
  return {
    now: () => new Date(base + tick * 1000),
    newId: () => {
      tick += 1;
      ids += 1;
      return `${prefix}-${ids}`;
    },
    setTime(ms: number) {
      base = ms;
      tick = 0;
    },
  };
}

/** Where the clock stands while turns are written: at each turn's session date, or running one second per id from the start. */
export type ClockMode = 'session' | 'flat';

/** Writes every turn as one memory (mode `turns`); returns the memory id of each turn id. */
export async function ingestTurns(
  engine: MemoryEngine,
  conversation: Conversation,
  env: ReturnType<typeof benchEnvironment>,
  clock: ClockMode = 'session',
): Promise<Map<string, string>> {
  const memoryOf = new Map<string, string>();
  const sessionId = conversation.id;
  let last = conversation.turns[0]?.at ?? Date.UTC(2023, 0, 1);
  let session = -1;
  let inSession = 0;
  for (const turn of conversation.turns) {
    // Turns of a session are a minute apart; a session date that does not parse continues after the last one.
    if (turn.session !== session) {
      session = turn.session;
      last = turn.at ?? last + (inSession + 1) * 60_000;
      inSession = 0;
    }
    if (clock === 'session') env.setTime(last + inSession * 60_000);
    inSession += 1;
    const receipt = await engine.writeMemory({
      text: turnMemoryText(turn),
      sessionId,
      participants: [turn.speaker],
      sources: [
        { messageId: turn.diaId, sessionId, role: 'user', senderId: turn.speaker, senderName: turn.speaker, content: turn.text, at: null },
      ],
    });
    if (receipt.embeddingError) throw new Error(`${conversation.id} ${turn.diaId}: embedding failed: ${receipt.embeddingError}`);
    memoryOf.set(turn.diaId, receipt.memoryId);
  }
  return memoryOf;
}

// ---------------------------------------------------------------------------------------------
// Retrieval.

const textOf = (engine: MemoryEngine, memoryId: string): string => engine.indexes.documents.get(memoryId)?.text ?? '';

/** The ids with their memory texts, read in one query. */
export function withTexts(engine: MemoryEngine, ids: readonly string[]): RankedMemory[] {
  const docs = engine.indexes.documents.getMany(ids);
  return ids.map((memoryId) => ({ memoryId, text: docs.get(memoryId)?.text ?? '' }));
}

/** BM25 over the FTS projection; the conversation's engine holds only that conversation. */
export function keywordSearch(engine: MemoryEngine, question: string, k: number): RankedMemory[] {
  return withTexts(engine, engine.indexes.keyword.search(question, { limit: k, status: 'active' }).map((hit) => hit.memoryId));
}

/** The query's vector, by the engine's own provider; one embedding per (engine, text). */
const queryVectors = new WeakMap<MemoryEngine, Map<string, Promise<Float32Array>>>();
/** Drops the remembered query vectors, so the next mode pays for its own embeddings. */
export function forgetQueryVectors(engine: MemoryEngine): void {
  queryVectors.delete(engine);
}

export function queryVector(engine: MemoryEngine, question: string): Promise<Float32Array> {
  let memo = queryVectors.get(engine);
  if (!memo) queryVectors.set(engine, (memo = new Map()));
  let vector = memo.get(question);
  if (!vector) {
    vector = engine.provider.embed([question]).then(([v]) => {
      if (!v) throw new Error('the provider returned no vector');
      return v;
    });
    memo.set(question, vector);
  }
  return vector;
}

/** Exact inner-product search over the FAISS projection. */
export async function vectorSearch(engine: MemoryEngine, question: string, k: number): Promise<RankedMemory[]> {
  const hits = await engine.indexes.vectors.search(await queryVector(engine, question), k);
  return withTexts(engine, hits.map((hit) => hit.id));
}

/**
 * The recall pipeline over the engine's own indexes and provider with the archival settings
 * profile (`archivalRecallSettings`); access statistics are not recorded.
 */
export function archivalRecall(engine: MemoryEngine, env: Environment): RecallFn {
  const settings = { ...defaultRecallSettings, ...archivalRecallSettings };
  return createRecall({ indexes: engine.indexes, provider: engine.provider, env, access: { record: () => undefined }, settings }).recall;
}

/** The recall pipeline's entry point, when the engine has one (`engine.recall`, built alongside this benchmark). */
interface RecallRequest {
  readonly query: string;
  readonly scope: { readonly mode: 'global' };
  readonly topK: number;
}
interface RecalledLike {
  readonly memoryId: string;
  readonly text?: string;
}
type RecallAnswer = readonly RecalledLike[] | { readonly memories: readonly RecalledLike[]; readonly injection?: { readonly included?: readonly string[] } };
export type RecallFn = (request: RecallRequest) => Promise<RecallAnswer> | RecallAnswer;

function recallOf(engine: MemoryEngine): RecallFn | null {
  const recall = (engine as unknown as { recall?: unknown }).recall;
  return typeof recall === 'function' ? (recall.bind(engine) as RecallFn) : null;
}

/** What `full` measures on this engine: the recall pipeline, or the plain fusion standing in for it. */
export function fullRecallLabel(engine: MemoryEngine): string {
  return recallOf(engine) ? 'recall pipeline' : 'fusion (no recall pipeline yet)';
}

/** The most memories one recall returns (RecallSettings.maxK); null for the fusion, which has no cap. */
export function fullRecallMaxK(engine: MemoryEngine): number | null {
  return recallOf(engine) ? defaultRecallSettings.maxK : null;
}

/** Scores scaled to 0..1 by min-max; a list whose scores are all equal scales to 1. */
function minMax(hits: readonly { id: string; score: number }[]): Map<string, number> {
  const scores = hits.map((h) => h.score);
  const lo = Math.min(...scores);
  const hi = Math.max(...scores);
  return new Map(hits.map((h) => [h.id, hi > lo ? (h.score - lo) / (hi - lo) : 1]));
}

/** Plain 50/50 min-max fusion of k×3 keyword and k×3 vector candidates; an id absent from a list scores 0 there. */
export async function fusionRecall(engine: MemoryEngine, question: string, k: number): Promise<RankedMemory[]> {
  const pool = k * 3;
  const keyword = engine.indexes.keyword.search(question, { limit: pool, status: 'active' }).map((h) => ({ id: h.memoryId, score: h.score }));
  const vector = await engine.indexes.vectors.search(await queryVector(engine, question), pool);
  const kw = minMax(keyword);
  const vec = minMax(vector);
  const ids = new Set([...kw.keys(), ...vec.keys()]);
  const fused = [...ids].map((id) => ({ id, score: 0.5 * (kw.get(id) ?? 0) + 0.5 * (vec.get(id) ?? 0) }));
  fused.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return withTexts(engine, fused.slice(0, k).map((f) => f.id));
}

export interface FullRecallResult {
  /** Best first. */
  readonly memories: RankedMemory[];
  /** The ids the recall put in its injection text (its own budget), or null for the fusion. */
  readonly injected: readonly string[] | null;
}

/**
 * `full` with the details: `engine.recall({query, scope: global, topK: k})` when the engine has it
 * (k above maxK asks for maxK), else `fusionRecall`.
 */
export async function fullRecallDetailed(engine: MemoryEngine, question: string, k: number, recall: RecallFn | null = recallOf(engine)): Promise<FullRecallResult> {
  if (!recall) return { memories: await fusionRecall(engine, question, k), injected: null };
  const answer = await recall({ query: question, scope: { mode: 'global' }, topK: Math.min(k, defaultRecallSettings.maxK) });
  const list = Array.isArray(answer) ? (answer as readonly RecalledLike[]) : (answer as { memories: readonly RecalledLike[] }).memories;
  const included = Array.isArray(answer) ? undefined : (answer as { injection?: { included?: readonly string[] } }).injection?.included;
  return {
    memories: list.map((m) => ({ memoryId: m.memoryId, text: typeof m.text === 'string' ? m.text : textOf(engine, m.memoryId) })),
    injected: included ? [...included] : null,
  };
}

/** The `full` retrieval mode: the recall pipeline when the engine has one, else a plain 50/50 min-max fusion. */
export async function fullRecall(engine: MemoryEngine, question: string, k: number): Promise<RankedMemory[]> {
  return (await fullRecallDetailed(engine, question, k)).memories;
}

/** The turn ids behind a memory: the `messageId`s of its sources. */
export function sourceTurnIds(engine: MemoryEngine, memoryId: string): string[] {
  return engine.indexes.sources.of(memoryId).map((s) => s.messageId);
}
