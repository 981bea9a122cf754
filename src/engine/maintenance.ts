import type { EventLog } from '../events/log/event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import type { VectorRebuildResult } from '../projections/vectors/vector-rebuild.js';
import { embedWithCache, type EmbeddingCache, type EmbeddingProvider } from '../providers/embeddings/index.js';
import type { Indexes } from './indexes.js';
import { checkConsistency, createMaintenanceFlags, type ConsistencyReport } from './maintenance-checks.js';
import { interruptedShadows, projectionsUnlikeTheirReplay, replayFailed, type Repair } from './maintenance-repairs.js';

export type MaintenanceState = 'idle' | 'checking' | 'rebuilding' | 'repairing' | 'partial' | 'failed' | 'cancelled';

export interface MaintenanceStatus {
  readonly state: MaintenanceState;
  readonly progress: { readonly done: number; readonly total: number } | null;
  readonly report: ConsistencyReport | null;
  readonly lastError: string | null;
  readonly needsIndexRebuild: string | null;
  /** What the last check rebuilt, and why. */
  readonly repaired: readonly Repair[];
}

interface MaintenanceDeps {
  readonly db: SqliteDatabase;
  readonly log: EventLog;
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
  let repaired: Repair[] = [];
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

  /** Rebuilds the SQLite projections named, in one replay, noting why. */
  const rebuildNamed = async (names: readonly string[], why: Repair['why']): Promise<void> => {
    if (names.length === 0) return;
    state = 'rebuilding';
    await indexes.runner.rebuildAll(names, why);
    repaired.push(...names.map((projection) => ({ projection, why })));
  };
  /** Both vector indexes into shadows; false when they did not switch (too many embeddings missing, cancelled). */
  const repairVectors = async (why: Repair['why']): Promise<boolean> => {
    const result = await rebuildVectors();
    repaired.push({ projection: 'vectors', why }, { projection: 'graph_vectors', why });
    return result.graphVectors?.status === 'completed';
  };

  /**
   * Resumes interrupted rebuilds, repairs what the cheap id checks find, then compares every
   * projection with a replay of the log (what `verify` does) and rebuilds each that differs.
   */
  const runOnce = async (): Promise<void> => {
    state = 'checking';
    repaired = [];
    const interrupted = interruptedShadows(indexes);
    await rebuildNamed(interrupted.sqlite, 'interrupted rebuild resumed');
    await indexes.catchUp();
    // A short command reads a snapshot's index bytes only when it needs a vector; the start-up check reads and checks them now.
    await Promise.all([indexes.vectors.load(), indexes.graphVectors.load()]);
    const stopped = await replayFailed(indexes);
    repaired.push(...stopped.replayed.map((projection) => ({ projection, why: 'had stopped at an event; replayed' as const })));
    // The id checks and the vectors read documents, fts, graph and atoms: with one of them failed, only the replay check runs.
    if (stopped.stillFailed.length > 0) return compareWithReplay(false);
    report = checkConsistency(deps.db, indexes);
    const cheap = [
      ...(report.ftsMismatch > 0 ? ['fts'] : []),
      ...(report.graphMismatch > 0 ? ['graph'] : []),
      ...(report.atomOrphans > 0 ? ['atoms'] : []),
    ];
    await rebuildNamed(cheap, 'failed the id check');
    const vectorsStopped = indexes.vectors.status().failed !== null || indexes.graphVectors.status().failed !== null;
    if (interrupted.vectors || vectorsStopped || report.fingerprintChanged || report.vectorMismatch > 0 || report.graphVectorMismatch > 0 || flags.get(flagName)) {
      if (report.fingerprintChanged) flags.set(flagName, 'embedding provider fingerprint changed');
      const why = interrupted.vectors ? 'interrupted rebuild resumed' : vectorsStopped ? 'had stopped at an event; replayed' : 'failed the id check';
      if (!(await repairVectors(why))) return;
    }
    await repairPending();
    if (controller.signal.aborted) return;
    await compareWithReplay(true);
  };
  /** What `verify` compares, repaired: every projection that differs from a replay of the log. */
  const compareWithReplay = async (readModelsServe: boolean): Promise<void> => {
    state = 'checking';
    const differ = await projectionsUnlikeTheirReplay(deps.log, indexes, controller.signal);
    await rebuildNamed(differ.sqlite, 'differed from a replay of the log');
    if (readModelsServe && differ.vectors && !(await repairVectors('differed from a replay of the log'))) return;
    if (readModelsServe) report = checkConsistency(deps.db, indexes);
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
    status: (): MaintenanceStatus => ({ state, progress, report, lastError, needsIndexRebuild: flags.get(flagName), repaired }),
  };
}

export type Maintenance = ReturnType<typeof createMaintenance>;
