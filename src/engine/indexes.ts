import { join } from 'node:path';
import type { EventLog } from '../events/log/event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { atomsProjection } from '../projections/atoms.js';
import { conversationRevisionsProjection, conversationsProjection } from '../projections/conversations.js';
import { documentsProjection } from '../projections/documents.js';
import { ftsProjection } from '../projections/fts.js';
import { graphProjection } from '../projections/graph.js';
import { lifecycleProjection } from '../projections/lifecycle.js';
import { memoryEventsProjection } from '../projections/memory-events.js';
import type { Projection } from '../projections/projection.js';
import type { RebuildHooks, RebuildResult } from '../projections/rebuild.js';
import { createProjectionRunner } from '../projections/runner.js';
import { sourcesProjection } from '../projections/sources.js';
import type { VectorSource } from '../projections/vectors/apply.js';
import { graphEntryVectorFeed } from '../projections/vectors/feed.js';
import { createVectorStore } from '../projections/vectors/vector-store.js';
import type { ApproximateSettings } from '../projections/vectors/approximate-index.js';
import { createReadModels } from '../queries/read-models.js';
import { fingerprintKey, truncateForEmbedding, type EmbeddingCache, type EmbeddingProvider } from '../providers/embeddings/index.js';

/** The read models the engine keeps in SQLite; each is rebuilt from the log alone. */
export const engineProjections: readonly Projection[] = [
  documentsProjection,
  ftsProjection,
  sourcesProjection,
  graphProjection,
  atomsProjection,
  memoryEventsProjection,
  conversationsProjection,
  conversationRevisionsProjection,
  lifecycleProjection,
];

export interface IndexOptions {
  readonly db: SqliteDatabase;
  readonly log: EventLog;
  readonly dataDir: string;
  readonly pageSize: number;
  /** Events between two snapshots of a vector shadow rebuild. */
  readonly vectorPersistEvery?: number;
  readonly provider: EmbeddingProvider;
  readonly cache: EmbeddingCache;
  readonly hooks: RebuildHooks;
  /** The head under the write lock, when the log lives in `db` (see openEngineLog). */
  readonly lockedHead?: () => bigint;
  /** The log the vector projections read, when it is not `log` (a shared log embeds what others wrote). */
  readonly vectorLog?: EventLog;
  /** The clock of set-aside records (damaged snapshots). */
  readonly now?: () => Date;
  /** Vector searches through an approximate (HNSW) index from a size on (ADR 8); null: always exact. */
  readonly approximate?: ApproximateSettings | null;
  /** Holds each page of a catch-up or replay while the WAL is brought back under its bound (checkpoint-worker.ts). */
  readonly walBound?: (patienceMs?: number) => Promise<void>;
}

/** The vector projection reads the embedding cache, keyed exactly as the engine filled it. */
export function cacheVectorSource(provider: EmbeddingProvider, cache: EmbeddingCache): VectorSource {
  const fpKey = fingerprintKey(provider.fingerprint);
  return {
    fingerprint: fpKey,
    dimension: provider.fingerprint.dimension ?? 0,
    keyOf: (text) => cache.keyOf(truncateForEmbedding(text, provider.maxInputChars)),
    lookup: (key) => cache.get(fpKey, key),
    lookupMany: (keys) => cache.getMany(fpKey, keys),
  };
}

/** Opens every projection and the read APIs over their live generations. */
export function openIndexes(options: IndexOptions) {
  const { db, log, lockedHead } = options;
  const runner = createProjectionRunner({
    db, log, projections: engineProjections, pageSize: options.pageSize, hooks: options.hooks, ...(lockedHead ? { lockedHead } : {}),
    ...(options.walBound ? { walBound: options.walBound } : {}),
  });
  const source = { ...cacheVectorSource(options.provider, options.cache), approximate: options.approximate ?? null };
  const dir = join(options.dataDir, 'vectors');
  const vectorLog = options.vectorLog ?? log;
  const head = lockedHead ? { lockedHead } : {};
  const clock = options.now ? { now: options.now } : {};
  const persist = options.vectorPersistEvery === undefined ? {} : { persistEvery: options.vectorPersistEvery };
  const vectors = createVectorStore({ db, log: vectorLog, dir, source, pageSize: options.pageSize, ...persist, ...head, ...clock });
  // Graph entries get vectors of their own, from the same cache, in the same folder.
  const graphVectors = createVectorStore({ db, log: vectorLog, dir, source, feed: graphEntryVectorFeed, pageSize: options.pageSize, ...persist, ...head, ...clock });
  return {
    runner,
    vectors,
    graphVectors,
    ...createReadModels(db, (name, table) => runner.liveTable(name, table)),
    async catchUp(): Promise<void> {
      await runner.catchUp();
      await Promise.all([vectors.catchUp(), graphVectors.catchUp()]);
    },
    /**
     * Starts a catch-up without waiting for it: what an append calls once its events are committed,
     * so the read models apply them while the WAL syncs. Its errors are the next awaited catch-up's
     * (catch-ups run one after another).
     */
    catchUpSoon(): void {
      this.catchUp().catch(() => undefined);
    },
    /** The lowest checkpoint of every read model: what this node has applied of the log. */
    appliedPosition(): bigint {
      const checkpoints = [...runner.checkpoints(), vectors.checkpoint(), graphVectors.checkpoint()];
      return checkpoints.reduce((low, c) => (c < low ? c : low));
    },
    /**
     * Read-your-writes: catches up until every read model has reached `position`; false when
     * `timeoutMs` ran out first (a shared log's replica may lag the leader that took the write).
     */
    async reach(position: bigint, timeoutMs: number): Promise<boolean> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await this.catchUp();
        if (this.appliedPosition() >= position) return true;
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

export type Indexes = ReturnType<typeof openIndexes>;

const mustComplete = (name: string, result: { status: string; reason?: string | null }): void => {
  if (result.status !== 'completed') throw new Error(`the ${name} rebuild did not complete: ${result.status} ${result.reason ?? ''}`.trim());
};

/**
 * Rebuilds both vector indexes and switches to them whatever share of embeddings is missing (those
 * items stay pending for maintenance): the old index must not stay live (an erasure, a rekeyed cache).
 */
export async function rebuildVectorIndexes(indexes: Pick<Indexes, 'vectors' | 'graphVectors'>): Promise<void> {
  for (const store of [indexes.vectors, indexes.graphVectors]) {
    mustComplete(store.feed.name, await store.rebuild({ maxFailureRatio: 1, fresh: true }));
  }
}

/**
 * Rebuilds the named SQLite projections and both vector indexes in one replay of the log: each
 * page is read and decoded once for all of them (ADR 4). The vector shadows then catch up with
 * what was appended meanwhile and switch whatever share of embeddings is missing, as above.
 */
export async function rebuildEveryIndex(
  indexes: Pick<Indexes, 'runner' | 'vectors' | 'graphVectors'>,
  names: readonly string[],
  reason: string,
  opts: { fresh?: boolean } = {},
): Promise<RebuildResult[]> {
  const shadows = [indexes.vectors, indexes.graphVectors].map((store) => ({ store, ...store.openRebuild({ maxFailureRatio: 1, fresh: true }) }));
  let results: RebuildResult[];
  try {
    results = await indexes.runner.rebuildAll(names, reason, { ...opts, alongside: shadows.map((s) => s.writer) });
  } catch (error) {
    for (const shadow of shadows) shadow.abandon();
    throw error;
  }
  for (const { store, complete } of shadows) {
    mustComplete(store.feed.name, await complete());
  }
  return results;
}
