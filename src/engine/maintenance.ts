import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import type { VectorRebuildResult } from '../projections/vectors/vector-rebuild.js';
import { embedWithCache, type EmbeddingCache, type EmbeddingProvider } from '../providers/embeddings/index.js';
import type { Indexes } from './indexes.js';
import { checkConsistency, createMaintenanceFlags, type ConsistencyReport } from './maintenance-checks.js';

export type MaintenanceState = 'idle' | 'checking' | 'rebuilding' | 'repairing' | 'partial' | 'failed' | 'cancelled';

export interface MaintenanceStatus {
  readonly state: MaintenanceState;
  readonly progress: { readonly done: number; readonly total: number } | null;
  readonly report: ConsistencyReport | null;
  readonly lastError: string | null;
  readonly needsIndexRebuild: string | null;
}

interface MaintenanceDeps {
  readonly db: SqliteDatabase;
  readonly indexes: Indexes;
  readonly provider: EmbeddingProvider;
  readonly cache: EmbeddingCache;
  /** Appends MemoryEmbeddingRepaired for a memory whose vector is now in the cache. */
  readonly recordRepaired: (memoryId: string) => Promise<void>;
}

/** The memory vectors' rebuild, then the graph entry vectors' (null when the first did not complete). */
export interface IndexRebuildResult {
  readonly vectors: VectorRebuildResult;
  readonly graphVectors: VectorRebuildResult | null;
}

const flagName = 'needs_index_rebuild';
const chunk = 64;

/** Background upkeep: finds what drifted from the log and repairs it, small fixes first. */
export function createMaintenance(deps: MaintenanceDeps) {
  const { indexes } = deps;
  const flags = createMaintenanceFlags(deps.db);
  let state: MaintenanceState = 'idle';
  let progress: MaintenanceStatus['progress'] = null;
  let report: ConsistencyReport | null = null;
  let lastError: string | null = null;
  let controller = new AbortController();
  let running: Promise<void> | null = null;

  /** Embeds texts into the cache in chunks, tolerating failures; returns how many failed. */
  const warmCache = async (texts: readonly string[]): Promise<number> => {
    let failed = 0;
    progress = { done: 0, total: texts.length };
    for (let i = 0; i < texts.length && !controller.signal.aborted; i += chunk) {
      const part = texts.slice(i, i + chunk);
      failed += await embedWithCache(deps.provider, deps.cache, part).then(() => 0, () => part.length);
      progress = { done: Math.min(i + chunk, texts.length), total: texts.length };
    }
    return failed;
  };

  const liveTexts = (): { memoryId: string; text: string }[] =>
    deps.db
      .prepare(`SELECT memory_id AS memoryId, text FROM ${indexes.runner.liveTable('documents', 'documents')}
        WHERE json_extract(metadata, '$.status') NOT IN ('forgotten', 'erased') ORDER BY memory_id`)
      .all() as { memoryId: string; text: string }[];

  /** Every graph entry: what the graph entry vectors must hold. */
  const entryTexts = (memoryId?: string): { entryId: string; text: string }[] =>
    deps.db
      .prepare(`SELECT entry_id AS entryId, text FROM ${indexes.runner.liveTable('graph', 'graph_entries')}
        ${memoryId === undefined ? '' : 'WHERE memory_id = ?'} ORDER BY entry_id`)
      .all(...(memoryId === undefined ? [] : [memoryId])) as { entryId: string; text: string }[];

  /** A shadow whose items differ from what the SQLite read models say must hold is not switched to. */
  const sameIds = (expected: () => readonly string[], what: string) => (ids: ReadonlySet<string>): string | null => {
    const want = expected();
    const missing = want.filter((id) => !ids.has(id)).length;
    const extra = ids.size - (want.length - missing);
    return missing + extra === 0 ? null : `shadow ${what} index differs from the read models (${missing} missing, ${extra} extra)`;
  };

  /**
   * Embeds every live memory and graph entry (the cache makes repeats free), then replays the
   * memory vectors and the graph entry vectors, each into a shadow.
   */
  const rebuildVectors = async (): Promise<IndexRebuildResult> => {
    state = 'rebuilding';
    await warmCache([...liveTexts().map((d) => d.text), ...entryTexts().map((e) => e.text)]);
    const onProgress = (p: { checkpoint: bigint; head: bigint }) => (progress = { done: Number(p.checkpoint), total: Number(p.head) });
    const vectors = await indexes.vectors.rebuild({
      signal: controller.signal, onProgress, finalCheck: sameIds(() => liveTexts().map((d) => d.memoryId), 'vector'),
    });
    const graphVectors =
      vectors.status === 'completed'
        ? await indexes.graphVectors.rebuild({
            signal: controller.signal, onProgress, finalCheck: sameIds(() => entryTexts().map((e) => e.entryId), 'graph entry vector'),
          })
        : null;
    const last = graphVectors ?? vectors;
    if (last.status === 'completed') flags.clear(flagName);
    state = last.status === 'completed' ? 'idle' : last.status;
    if (last.reason) lastError = last.reason;
    return { vectors, graphVectors };
  };

  /** Embeds the memory and its graph entries again, in one request, for the memories with pending items. */
  const repairPending = async (): Promise<void> => {
    const owners = [...new Set([...indexes.vectors.pendingOwners(), ...indexes.graphVectors.pendingOwners()])].sort();
    if (owners.length === 0) return;
    state = 'repairing';
    const texts = new Map(liveTexts().map((d) => [d.memoryId, d.text]));
    for (const memoryId of owners) {
      const text = texts.get(memoryId);
      if (text === undefined || controller.signal.aborted) continue;
      const all = [text, ...entryTexts(memoryId).map((e) => e.text)];
      const ok = await embedWithCache(deps.provider, deps.cache, all).then(() => true, () => false);
      if (ok) await deps.recordRepaired(memoryId);
    }
    await indexes.catchUp();
  };

  const runOnce = async (): Promise<void> => {
    state = 'checking';
    await indexes.catchUp();
    report = checkConsistency(deps.db, indexes);
    if (report.ftsMismatch > 0) await indexes.runner.rebuild('fts', 'consistency check');
    if (report.graphMismatch > 0) await indexes.runner.rebuild('graph', 'consistency check');
    if (report.atomOrphans > 0) await indexes.runner.rebuild('atoms', 'consistency check');
    if (report.fingerprintChanged || report.vectorMismatch > 0 || report.graphVectorMismatch > 0 || flags.get(flagName)) {
      if (report.fingerprintChanged) flags.set(flagName, 'embedding provider fingerprint changed');
      const result = await rebuildVectors();
      if (result.graphVectors?.status !== 'completed') return;
    }
    await repairPending();
    report = checkConsistency(deps.db, indexes);
    state = 'idle';
  };

  const track = (work: () => Promise<void>): Promise<void> => {
    if (running) return running;
    controller = new AbortController();
    running = work()
      .catch((error: unknown) => {
        state = controller.signal.aborted ? 'cancelled' : 'failed';
        lastError = error instanceof Error ? error.message : String(error);
      })
      .finally(() => {
        running = null;
        progress = null;
      });
    return running;
  };

  return {
    /** Starts a check and its repairs in the background; the engine is usable meanwhile. */
    start: (): Promise<void> => track(runOnce),
    rebuildIndex: async (): Promise<IndexRebuildResult> => {
      await running;
      flags.set(flagName, 'requested');
      let result: IndexRebuildResult | undefined;
      await track(async () => {
        await indexes.runner.rebuild('fts', 'requested');
        result = await rebuildVectors();
      });
      if (!result) throw new Error(lastError ?? 'index rebuild failed');
      return result;
    },
    /** Replays the graph entry vectors into a shadow (after a graph rebuild, say); the cache must hold their embeddings. */
    rebuildGraphVectors: async (): Promise<VectorRebuildResult> => {
      await running;
      let result: VectorRebuildResult | undefined;
      await track(async () => {
        state = 'rebuilding';
        await warmCache(entryTexts().map((e) => e.text));
        const finalCheck = sameIds(() => entryTexts().map((e) => e.entryId), 'graph entry vector');
        result = await indexes.graphVectors.rebuild({ signal: controller.signal, finalCheck });
        state = result.status === 'completed' ? 'idle' : result.status;
      });
      if (!result) throw new Error(lastError ?? 'graph entry vector rebuild failed');
      return result;
    },
    requestIndexRebuild: (reason: string) => flags.set(flagName, reason),
    idle: async (): Promise<void> => {
      await running;
    },
    async cancel(): Promise<void> {
      controller.abort();
      await running;
    },
    status: (): MaintenanceStatus => ({ state, progress, report, lastError, needsIndexRebuild: flags.get(flagName) }),
  };
}

export type Maintenance = ReturnType<typeof createMaintenance>;
