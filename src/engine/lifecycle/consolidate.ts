import { isCandidate, planConsolidation, unionSources, type ConsolidationGroup, type NeighbourPair } from '../../commands/lifecycle/consolidation.js';
import type { ConsolidationSettings } from '../../commands/lifecycle/settings.js';
import type { CallContext, WriteExtras, WriteReceipt } from '../write-path.js';
import type { Environment } from '../clock.js';
import type { Indexes } from '../indexes.js';
import { embedWithCache, type EmbeddingCache, type EmbeddingProvider } from '../../providers/embeddings/index.js';
import type { LlmProvider, SummaryMessage } from '../../providers/llm/index.js';

type Write = (type: 'WriteMemory' | 'ArchiveMemory' | 'ForgetMemory', input: unknown, ctx: CallContext, extra?: WriteExtras) => Promise<WriteReceipt>;

export interface ConsolidationDeps {
  readonly indexes: Indexes;
  readonly env: Environment;
  readonly provider: EmbeddingProvider;
  readonly cache: EmbeddingCache;
  readonly llm: LlmProvider;
  readonly settings: ConsolidationSettings;
  readonly write: Write;
}

export interface ConsolidationPlan {
  readonly asOf: string;
  readonly grouping: ConsolidationSettings['grouping'];
  readonly candidates: number;
  readonly groups: readonly ConsolidationGroup[];
}

export interface ConsolidationResult extends ConsolidationPlan {
  readonly consolidated: readonly { readonly memoryId: string; readonly mergedMemoryIds: readonly string[] }[];
  readonly failed: readonly { readonly memoryIds: readonly string[]; readonly error: string }[];
}

export const consolidationActor = 'system:consolidation';
const maxSources = 10_000;

/**
 * Consolidation (ADR 29): candidates grouped by session or by similarity (pairs from the vector
 * index, each memory's nearest neighbours), each group summarized into one new memory carrying the
 * union of the originals' sources, written with MemoriesConsolidated in one append; then each
 * original is archived or forgotten in its own stream. A crash in between leaves unsettled
 * originals in the lifecycle projection, which `settle` finishes.
 */
export function createConsolidation(deps: ConsolidationDeps) {
  const { indexes, settings } = deps;

  const neighbourPairs = async (ids: readonly string[]): Promise<NeighbourPair[]> => {
    const docs = indexes.documents.getMany(ids);
    const texts = ids.map((id) => docs.get(id)?.text ?? '');
    const { vectors } = await embedWithCache(deps.provider, deps.cache, texts);
    const pairs: NeighbourPair[] = [];
    for (const [i, a] of ids.entries()) {
      for (const hit of await indexes.vectors.search(vectors[i] as Float32Array, settings.neighbours + 1)) {
        if (hit.id !== a) pairs.push({ a, b: hit.id, score: hit.score });
      }
    }
    return pairs;
  };

  async function plan(now: Date = deps.env.now()): Promise<ConsolidationPlan> {
    await indexes.catchUp();
    const asOf = now.toISOString();
    const memories = indexes.lifecycle.consolidationMemories(asOf);
    const nowMs = now.getTime();
    const candidates = memories.filter((m) => isCandidate(m, settings, nowMs));
    const pairs = settings.grouping === 'semantic' ? await neighbourPairs(candidates.map((m) => m.memoryId)) : [];
    return { asOf, grouping: settings.grouping, candidates: candidates.length, groups: planConsolidation(memories, settings, nowMs, pairs) };
  }

  const summarize = async (group: ConsolidationGroup) => {
    const docs = indexes.documents.getMany(group.memoryIds);
    const messages: SummaryMessage[] = group.memoryIds.map((id, index) => {
      const doc = docs.get(id);
      return { messageId: id, index, role: 'user', senderId: null, senderName: null, content: doc?.text ?? '', at: doc?.createdAt ?? deps.env.now().toISOString() };
    });
    return deps.llm.summarize({ sessionId: group.scope.sessionId ?? 'consolidation', chatType: 'private', messages });
  };

  /** Settles what a consolidation left unsettled (a crash between the new memory and its originals). */
  async function settle(): Promise<number> {
    await indexes.catchUp();
    let settled = 0;
    for (const u of indexes.lifecycle.unsettled()) {
      if (indexes.documents.get(u.originalId)?.status !== 'active') continue;
      const reason = `consolidated into ${u.memoryId}`;
      const ctx = { actor: consolidationActor, correlationId: u.consolidationId, causationId: u.consolidationId };
      await deps.write(u.retention === 'archive' ? 'ArchiveMemory' : 'ForgetMemory', { memoryId: u.originalId, reason }, ctx);
      settled += 1;
    }
    return settled;
  }

  /** Consolidates the groups of `plan`: summarizer and embeddings before each append, as for any write. */
  async function exec(now: Date = deps.env.now(), signal?: AbortSignal): Promise<ConsolidationResult> {
    const planned = await plan(now);
    const consolidated: { memoryId: string; mergedMemoryIds: string[] }[] = [];
    const failed: { memoryIds: readonly string[]; error: string }[] = [];
    for (const group of planned.groups) {
      // Stopped between groups: each group already written is whole, its originals settle at the next start.
      if (signal?.aborted) break;
      const memoryId = deps.env.newId();
      const consolidationId = `consolidation-${memoryId}`;
      const ctx = { actor: consolidationActor, correlationId: consolidationId, causationId: consolidationId };
      try {
        const summary = await summarize(group);
        const sources = unionSources(group.memoryIds.map((id) => indexes.sources.of(id))).slice(-maxSources);
        const reason = `${group.memoryIds.length} memories ${planned.grouping === 'session' ? `of session ${group.scope.sessionId}` : `alike at similarity >= ${settings.similarity}`}, each below importance ${settings.maxImportance} and ${settings.minAgeDays} days old`;
        const consolidates = {
          type: 'MemoriesConsolidated' as const,
          schemaVersion: 2 as const,
          data: { memoryId, mergedMemoryIds: [...group.memoryIds], consolidationId, grouping: planned.grouping, retention: settings.retention, reason },
        };
        const input = {
          memoryId, text: summary.summary, importance: group.importance, ...group.scope,
          topics: summary.topics, keyFacts: summary.keyFacts, participants: summary.participants, sentiment: summary.sentiment, sources,
        };
        await deps.write('WriteMemory', input, ctx, { consolidates });
        consolidated.push({ memoryId, mergedMemoryIds: [...group.memoryIds] });
      } catch (error) {
        failed.push({ memoryIds: group.memoryIds, error: error instanceof Error ? error.message : String(error) });
      }
    }
    await settle();
    return { ...planned, consolidated, failed };
  }

  return { plan, exec, settle };
}

export type Consolidation = ReturnType<typeof createConsolidation>;
