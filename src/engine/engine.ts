import { streams } from '../events/streams.js';
import { systemEnvironment } from './clock.js';
import type { Config } from './config.js';
import { embeddingProviderFrom, fingerprintKey } from '../providers/embeddings/index.js';
import { openIndexes, rebuildVectorIndexes } from './indexes.js';
import { openEmbeddingCache } from './embedding-cache.js';
import { createAccessBatcher } from './access-batcher.js';
import { takeBackup } from './backup.js';
import { createErasure, defaultErasureSteps } from './erase/index.js';
import { backupBeforeErase, shredBackupsStep } from './backups/erasure.js';
import { createMaintenance } from './maintenance.js';
import { createRecall } from './recall.js';
import { createRecallWorker, recallThreadFrom, recallThreadTables } from './recall-worker.js';
import { createCheckpointer } from './checkpoint-worker.js';
import { createReranker } from '../providers/rerank.js';
import { defaultRecallSettings } from '../queries/recall/types.js';
import { recordEmbeddingFingerprint } from './providers.js';
import { rebuildEventHooks, recordEvent } from './system-events.js';
import { createWritePath, type CallContext } from './write-path.js';
import { createReplay } from './time-travel.js';
import { createTransfer } from './transfer.js';
import { createBatchWriter, type WriteBatchOptions } from './write-batch.js';
import { createWriteGroup } from './write-group.js';
import { createCompliance } from './compliance.js';
import { createOutputs } from './outputs.js';
import { ProjectionFailedError } from '../projections/failure.js';
import { createConversationStore } from './conversation/store.js';
import { createConversationHooks } from './hooks/index.js';
import { llmProviderFrom } from '../providers/llm/index.js';
import { createSummaryRunner } from './summarize/runner.js';
import { summarizerMemories } from './summarize/memory-writer.js';
import { embeddingPrefill } from './embedding-prefill.js';
import { engineStatus } from './status.js';
import type { SharedLog } from './shared-log.js';
import { backupsDirOf, openStore } from './backups/open-store.js';
import { restoreManagedBackup } from './backups/restore.js';
import { createLifecycle } from './lifecycle/index.js';
import { accessAtomEvents, atomsAtHead } from './lifecycle/access.js';
import { packageVersion } from './version.js';
import { warmJieba } from '../projections/text/jieba.js';
import { createExtractiveSummarizer } from '../providers/llm/index.js';
import type { EraseInput, ErasePreviewInput, MemoryChangesInput, RecallInput, WriteMemoryInput } from './inputs.js';

export type { CallContext, WriteReceipt } from './write-path.js';
export type * from './inputs.js';
export { engineProjections } from './indexes.js';

import type { EngineOptions } from './engine-options.js';
export type { EngineOptions } from './engine-options.js';

/**
 * Opens the engine: one SQLite file with every projection, caught up, and the log in the same file
 * or, with `log.kind: eventstoredb`, in EventStoreDB shared with other nodes (ADR 27).
 */
export async function createMemoryEngine(config: Config, options: EngineOptions = {}) {
  const env = options.env ?? systemEnvironment;
  const opened = await openStore(config, {
    env, packageVersion: options.packageVersion ?? packageVersion(), ...(options.migrations ? { migrations: options.migrations } : {}),
  });
  const { db, log, shared, lockedHead, backups } = opened;
  const checkpoints = createCheckpointer(db);
  /*
   * The WAL's bound holds a replay's pages only while recalls are being served (ADR 32): under a
   * 100k rebuild it took the event loop's longest pause from 598 to 60-100 ms, but a replay it holds
   * runs 15-70% longer, so with nobody recalling (the last recall 2 s ago) a rebuild runs unheld.
   */
  let recalledAt = -Infinity;
  const serving = (): boolean => performance.now() - recalledAt < 2000;
  const provider = options.embeddingProvider ?? embeddingProviderFrom(config.embedding, { now: env.now });
  const { cache, rekeyed } = await openEmbeddingCache(db, log, provider);
  const indexes = openIndexes({
    db, log, dataDir: config.dataDir, pageSize: config.projections.pageSize, vectorPersistEvery: config.projections.vectorPersistEvery, provider, cache,
    hooks: rebuildEventHooks(log, env, 'system:projections'), now: env.now, approximate: config.projections.approximateVectors,
    ...(checkpoints ? { walBound: (patienceMs?: number) => (serving() ? checkpoints.bounded(patienceMs) : Promise.resolve()) } : {}),
    ...(lockedHead ? { lockedHead } : {}), ...(shared ? { vectorLog: embeddingPrefill(log, provider, cache) } : {}),
  });
  const startedEmpty = indexes.appliedPosition() === 0n;
  await indexes.catchUp();
  // Pending vector items of a store whose cache was just rekeyed name their old keys: look them up again.
  if (rekeyed && indexes.vectors.pending().size + indexes.graphVectors.pending().size > 0) await rebuildVectorIndexes(indexes);
  const atomsFresh = atomsAtHead(log, indexes.runner);
  const access = createAccessBatcher(log, env, { effects: accessAtomEvents(indexes.atoms, config.lifecycle.atoms, atomsFresh), written: atomsFresh });
  const reranker = options.reranker ?? createReranker(config.rerank);
  const settings = options.recallSettings ? { settings: { ...defaultRecallSettings, ...options.recallSettings } } : {};
  // A store too small for the thread to pay never starts it (ADR 21).
  const worker = createRecallWorker(db, () => recallThreadTables(indexes.runner.liveTable), () => indexes.vectors.ids().length >= recallThreadFrom);
  const recall = createRecall({ indexes, provider, env, access, reranker, worker, ...settings });
  const served = (input: unknown) => {
    recalledAt = performance.now();
    return recall.recall(input);
  };
  const replay = createReplay({ log, env, indexes, provider, cache, reranker, ...settings });
  const readYourWritesTimeoutMs = config.log.eventstoredb.readYourWritesTimeoutMs;
  const write = createWritePath({ log, env, indexes, provider, cache, defaultActor: config.actor, limits: config.limits, readYourWritesTimeoutMs });
  // Any write invalidates the recall cache.
  const run: typeof write = (type, input, ctx, extra) => write(type, input, ctx, extra).finally(() => recall.invalidate());
  const outputs = createOutputs(config);
  const transfer = createTransfer({
    log, env, indexes, provider, cache, write: run, defaultActor: config.actor, limits: config.limits, invalidate: () => recall.invalidate(),
    beforeImport: async () => void (await backups.take('before-import')), outputs,
  });
  const batches = createBatchWriter({ log, env, indexes, provider, cache, defaultActor: config.actor, limits: config.limits, invalidate: () => recall.invalidate() });
  // Concurrent writeMemory calls share one append and one catch-up (group commit).
  const grouped = createWriteGroup({ single: (input, ctx) => run('WriteMemory', input, ctx), newId: env.newId, check: batches.checkNew, batch: log.appendAll ? batches.writeBatch : null });
  const maintenance = createMaintenance({
    db, log, indexes, provider, cache,
    recordRepaired: (memoryId) =>
      recordEvent(log, env, 'system:maintenance', streams.memory(memoryId), {
        type: 'MemoryEmbeddingRepaired',
        schemaVersion: 1,
        data: { memoryId, fingerprint: fingerprintKey(provider.fingerprint) },
      }, 'stream_exists'),
  });
  const memories = summarizerMemories(run, indexes.documents);
  const store = createConversationStore(log);
  const llm = options.llmProvider === undefined ? llmProviderFrom(config.llm) : options.llmProvider;
  const summaries = createSummaryRunner({
    store, conversations: indexes.conversations, llm, memories, env, config: config.conversation, actor: 'system:summarizer',
  });
  let sharing: SharedLog | null = null;
  const erasureDeps = {
    db, log, env, indexes, provider, cache, defaultActor: config.actor, checkpointsIdle: () => checkpoints?.idle() ?? Promise.resolve(),
    invalidate: () => {
      recall.invalidate();
      store.forgetCached();
    },
    quiesce: () => summaries.cancelAll(),
  };
  // The shared-log module (follower, rxjs) loads only on a shared log; there, this node's own erasures are noted
  // before they are recorded, so its follower leaves them alone.
  const sharedLog = shared ? await import('./shared-log.js') : null;
  const erasureLog = sharedLog ? sharedLog.notingErasures(log, (id) => sharing?.erasing(id)) : log;
  const erasure = createErasure({ ...erasureDeps, log: erasureLog }, [...defaultErasureSteps, shredBackupsStep(backups)]);
  const eraseWithBackup = backupBeforeErase(erasure, backups);
  // An erasure a killed process left part-way is finished before anything reads the store.
  await erasure.resumeErasures();
  if (shared && sharedLog) sharing = await sharedLog.joinSharedLog({ ...erasureDeps, shared, startedEmpty, follow: options.follow !== false });
  if (await recordEmbeddingFingerprint(log, env, provider)) maintenance.requestIndexRebuild('embedding provider fingerprint changed');
  if (options.maintenance !== false) void maintenance.start();
  let ready = false;
  const conversation = createConversationHooks({
    store, log, conversations: indexes.conversations, runner: summaries, memories, recall: served, env,
    config: config.conversation, limits: config.limits, actor: 'system:conversation', isReady: () => ready, catchUp: () => indexes.catchUp(),
  });
  // With conversations or documents stopped at an event (ADR 23), recovery waits for their rebuild; the store still opens.
  await summaries.recoverInterrupted().catch((error: unknown) => {
    if (!(error instanceof ProjectionFailedError)) throw error;
  });
  const lifecycle = createLifecycle({
    log, env, indexes, provider, cache, settings: config.lifecycle, backups, dailyBackup: config.backups.daily, write: run,
    // Consolidation needs a summarizer even where conversations have none: the offline extractive one.
    llm: llm ?? createExtractiveSummarizer(),
    changed: () => recall.invalidate(),
  });
  if (options.scheduler ?? config.lifecycle.scheduler) void lifecycle.start();
  if (options.warmTokenizer ?? true) warmJieba();
  ready = true;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    ready = false;
    await grouped.idle();
    await lifecycle.close(config.conversation.shutdownTimeoutMs);
    await sharing?.stop();
    await summaries.close(config.conversation.shutdownTimeoutMs);
    await maintenance.cancel();
    await access.flush();
    await worker?.close();
    await indexes.runner.stop();
    for (const vectors of [indexes.vectors, indexes.graphVectors]) await vectors.close();
    await log.close();
    await checkpoints?.close();
    db.close();
  };

  return {
    log,
    runner: indexes.runner,
    indexes,
    documents: indexes.documents,
    maintenance,
    provider,
    /** Many new memories in batches: one append and one catch-up per batch, progress after each; the log writeMemory one by one would make. */
    writeMemories: (inputs: readonly WriteMemoryInput[], ctx: CallContext = {}, options: WriteBatchOptions = {}) => batches.writeMemories(inputs, ctx, options),
    writeMemory: (input: WriteMemoryInput, ctx: CallContext = {}) => grouped.write(input, ctx),
    updateMemory: (memoryId: string, changes: MemoryChangesInput, ctx: CallContext = {}) => run('UpdateMemory', { memoryId, changes }, ctx),
    forgetMemory: (memoryId: string, reason?: string, ctx: CallContext = {}) => run('ForgetMemory', { memoryId, reason }, ctx),
    archiveMemory: (memoryId: string, reason?: string, ctx: CallContext = {}) => run('ArchiveMemory', { memoryId, reason }, ctx),
    restoreMemory: (memoryId: string, ctx: CallContext = {}) => run('RestoreMemory', { memoryId }, ctx),
    /** Crypto-shreds a user, session or persona: `{ kind, id, reason, force? }`, a recorded process (ADR 19). */
    eraseSubject: (input: EraseInput, ctx: CallContext = {}) => eraseWithBackup(input, ctx),
    /** What erasing `{ kind, id }` would shred: events, messages, memories (derived too), atoms, graph entries; writes nothing. */
    previewErasure: (input: ErasePreviewInput) => erasure.previewErasure(input),
    /** Copies the whole store to `path` (outside the store; an existing file only with `force`) while it runs, and records BackupTaken. */
    backup: (path: string, options: { force?: boolean } = {}) =>
      takeBackup(db, log, env, config.actor, outputs.checkFile(path, { flag: 'path', force: options.force === true }), options.force === true),
    /** The guard of every output path (ADR 24). */
    outputs,
    /** Dual-route recall in a scope, through the cache and the atom policy; returns memories and the injection text. */
    recall: (input: RecallInput) => served(input),
    flushAccess: () => access.flush(),
    /** Audit trail of a memory or atom (`history`), the store at a past point (`at`), and `diff` between two points. */
    ...replay,
    /** `previewImport`, `importMemories` (all or nothing), `exportMemories` (native JSON or CSV) and `exportMemoriesToFile`. */
    ...transfer,
    /** `replaySession` (turn by turn), `complianceExport` of a subject and `verifyComplianceExport` (ADR 20). */
    ...createCompliance({ db, log, env, outputs }),
    /** Host hooks around each LLM call, session reset, summarize now, cleanup of old injection blocks. */
    conversation,
    /** Before an LLM call: reconcile with the host's history, record the user message, recall; see `src/engine/hooks`. */
    beforeLlmRequest: conversation.beforeLlmRequest,
    /** After an LLM call: record the reply, schedule a background summary at the threshold. */
    afterLlmResponse: conversation.afterLlmResponse,
    /** Records the shared log's digest up to its head (ADR 27); null on the SQLite log, whose chain links every row. */
    anchorLog: async () => (shared ? shared.anchor() : null),
    /** Resolves when the follower of a shared log has applied what it has seen (tests). */
    settled: async (): Promise<void> => sharing?.idle(),
    status: () => engineStatus({ log, env, indexes, provider, maintenance, lifecycle, sharing: () => sharing }),
    /** Stops the lifecycle scheduler first, then everything else; a second call does nothing. */
    close,
    /** Decay ticks, consolidation and their scheduler (ADR 29). */
    lifecycle,
    /** The engine's own backups in `backups.dir` (ADR 29). */
    backups,
    /**
     * Puts a managed backup in the store's place: checks it, backs up the store as it is, closes
     * the engine, swaps the files and records BackupRestored. The next open replays the read models.
     * Not on a shared log: its log is restored on the EventStoreDB server (docs/deploy.md).
     */
    restoreBackup: (backupId: string) =>
      restoreManagedBackup({ shared: shared !== null, backups, close, env, storeFile: opened.storeFile, vectorsDir: opened.vectorsDir, backupsDir: backupsDirOf(config) }, backupId),
  };
}

export type MemoryEngine = Awaited<ReturnType<typeof createMemoryEngine>>;
