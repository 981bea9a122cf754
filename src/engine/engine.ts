import { join } from 'node:path';
import { openDatabase } from '../events/log/sqlite-database.js';
import { createSqliteEventLog } from '../events/log/sqlite-event-log.js';
import { streams } from '../events/streams.js';
import { systemEnvironment, type Environment } from './clock.js';
import type { Config } from './config.js';
import { createEmbeddingCache, createEmbeddingProvider, fingerprintKey, type EmbeddingProvider } from './embeddings/index.js';
import { openIndexes } from './indexes.js';
import { createAccessBatcher } from './access-batcher.js';
import { createMaintenance } from './maintenance.js';
import { createRecall } from './recall.js';
import { createReranker } from './rerank.js';
import type { Reranker } from '../queries/recall/rank.js';
import { defaultRecallSettings, type RecallSettings } from '../queries/recall/types.js';
import { recordEmbeddingFingerprint } from './providers.js';
import { rebuildEventHooks, recordEvent } from './system-events.js';
import { createWritePath, type CallContext } from './write-path.js';

export type { CallContext, WriteReceipt } from './write-path.js';
export { engineProjections } from './indexes.js';

export interface EngineOptions {
  readonly env?: Environment;
  /** Overrides the provider built from the configuration (tests, embedding hosts). */
  readonly embeddingProvider?: EmbeddingProvider;
  /** Overrides the reranker built from the configuration. */
  readonly reranker?: Reranker | null;
  /** Overrides of the recall defaults (timeouts, weights, budgets). */
  readonly recallSettings?: Partial<RecallSettings>;
  /** Run the start-up consistency check in the background (default true). */
  readonly maintenance?: boolean;
}

/** Opens the embedded engine: one SQLite file with the log and every projection, caught up. */
export async function createMemoryEngine(config: Config, options: EngineOptions = {}) {
  const env = options.env ?? systemEnvironment;
  const db = openDatabase(join(config.dataDir, config.databaseFile), { synchronous: config.sqlite.synchronous });
  const log = createSqliteEventLog(db);
  const provider = options.embeddingProvider ?? createEmbeddingProvider(config.embedding, { now: env.now });
  const cache = createEmbeddingCache(db);
  const indexes = openIndexes({
    db, log, dataDir: config.dataDir, pageSize: config.projections.pageSize, provider, cache,
    hooks: rebuildEventHooks(log, env, 'system:projections'),
  });
  await indexes.catchUp();
  const access = createAccessBatcher(log, env);
  const recall = createRecall({
    indexes, provider, env, access, reranker: options.reranker ?? createReranker(config.rerank),
    ...(options.recallSettings ? { settings: { ...defaultRecallSettings, ...options.recallSettings } } : {}),
  });
  const write = createWritePath({ log, env, indexes, provider, cache, defaultActor: config.actor });
  // Any write invalidates the recall cache.
  const run: typeof write = (type, input, ctx) => write(type, input, ctx).finally(() => recall.invalidate());
  const maintenance = createMaintenance({
    db, indexes, provider, cache,
    recordRepaired: (memoryId) =>
      recordEvent(log, env, 'system:maintenance', streams.memory(memoryId), {
        type: 'MemoryEmbeddingRepaired',
        schemaVersion: 1,
        data: { memoryId, fingerprint: fingerprintKey(provider.fingerprint) },
      }, 'stream_exists'),
  });
  if (await recordEmbeddingFingerprint(log, env, provider)) maintenance.requestIndexRebuild('embedding provider fingerprint changed');
  if (options.maintenance !== false) void maintenance.start();

  return {
    log,
    runner: indexes.runner,
    indexes,
    documents: indexes.documents,
    maintenance,
    provider,
    writeMemory: (input: unknown, ctx: CallContext = {}) =>
      run('WriteMemory', typeof input === 'object' && input !== null && !('memoryId' in input) ? { memoryId: env.newId(), ...input } : input, ctx),
    updateMemory: (memoryId: string, changes: unknown, ctx: CallContext = {}) => run('UpdateMemory', { memoryId, changes }, ctx),
    forgetMemory: (memoryId: string, reason?: string, ctx: CallContext = {}) => run('ForgetMemory', { memoryId, reason }, ctx),
    archiveMemory: (memoryId: string, reason?: string, ctx: CallContext = {}) => run('ArchiveMemory', { memoryId, reason }, ctx),
    restoreMemory: (memoryId: string, ctx: CallContext = {}) => run('RestoreMemory', { memoryId }, ctx),
    /** Dual-route recall in a scope, through the cache and the atom policy; returns memories and the injection text. */
    recall: recall.recall,
    flushAccess: () => access.flush(),
    async status() {
      return {
        headPosition: await log.headPosition(),
        projections: indexes.runner.status(),
        vectors: indexes.vectors.status(),
        graphVectors: indexes.graphVectors.status(),
        maintenance: maintenance.status(),
      };
    },
    async close(): Promise<void> {
      await maintenance.cancel();
      await access.flush();
      await indexes.runner.stop();
      await indexes.vectors.close();
      await indexes.graphVectors.close();
      await log.close();
      db.close();
    },
  };
}

export type MemoryEngine = Awaited<ReturnType<typeof createMemoryEngine>>;
