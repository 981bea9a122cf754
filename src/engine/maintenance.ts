import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import type { VectorRebuildResult } from '../projections/vectors/vector-rebuild.js';
import { embedWithCache, type EmbeddingCache, type EmbeddingProvider } from './embeddings/index.js';
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

  /** Embeds every live memory (the cache makes repeats free) and replays the vector index into a shadow. */
  const rebuildVectors = async (): Promise<VectorRebuildResult> => {
    state = 'rebuilding';
    await warmCache(liveTexts().map((d) => d.text));
    const result = await indexes.vectors.rebuild({
      signal: controller.signal,
      finalCheck: (ids) => {
        const live = liveTexts();
        const missing = live.filter((d) => !ids.has(d.memoryId)).length;
        const extra = ids.size - (live.length - missing);
        return missing + extra === 0 ? null : `shadow index differs from the documents (${missing} missing, ${extra} extra)`;
      },
      onProgress: (p) => (progress = { done: Number(p.checkpoint), total: Number(p.head) }),
    });
    if (result.status === 'completed') flags.clear(flagName);
    state = result.status === 'completed' ? 'idle' : result.status;
    if (result.reason) lastError = result.reason;
    return result;
  };

  const repairPending = async (): Promise<void> => {
    const pending = [...indexes.vectors.pending().keys()];
    if (pending.length === 0) return;
    state = 'repairing';
    const texts = new Map(liveTexts().map((d) => [d.memoryId, d.text]));
    for (const memoryId of pending) {
      const text = texts.get(memoryId);
      if (text === undefined || controller.signal.aborted) continue;
      const ok = await embedWithCache(deps.provider, deps.cache, [text]).then(() => true, () => false);
      if (ok) await deps.recordRepaired(memoryId);
    }
    await indexes.vectors.catchUp();
  };

  const runOnce = async (): Promise<void> => {
    state = 'checking';
    await indexes.catchUp();
    report = checkConsistency(deps.db, indexes);
    if (report.ftsMismatch > 0) await indexes.runner.rebuild('fts', 'consistency check');
    if (report.graphMismatch > 0) await indexes.runner.rebuild('graph', 'consistency check');
    if (report.atomOrphans > 0) await indexes.runner.rebuild('atoms', 'consistency check');
    if (report.fingerprintChanged || report.vectorMismatch > 0 || flags.get(flagName)) {
      if (report.fingerprintChanged) flags.set(flagName, 'embedding provider fingerprint changed');
      const result = await rebuildVectors();
      if (result.status !== 'completed') return;
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
    rebuildIndex: async (): Promise<VectorRebuildResult> => {
      await running;
      flags.set(flagName, 'requested');
      let result: VectorRebuildResult | undefined;
      await track(async () => {
        await indexes.runner.rebuild('fts', 'requested');
        result = await rebuildVectors();
      });
      if (!result) throw new Error(lastError ?? 'index rebuild failed');
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
