import { join } from 'node:path';
import type { EventLog } from '../events/log/event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { sqliteLockedHead } from '../events/log/sqlite-event-log.js';
import { atomsProjection } from '../projections/atoms.js';
import { conversationRevisionsProjection, conversationsProjection } from '../projections/conversations.js';
import { documentsProjection } from '../projections/documents.js';
import { ftsProjection } from '../projections/fts.js';
import { graphProjection } from '../projections/graph.js';
import { lifecycleProjection } from '../projections/lifecycle.js';
import { memoryEventsProjection } from '../projections/memory-events.js';
import type { Projection } from '../projections/projection.js';
import type { RebuildHooks } from '../projections/rebuild.js';
import { createProjectionRunner } from '../projections/runner.js';
import { sourcesProjection } from '../projections/sources.js';
import type { VectorSource } from '../projections/vectors/apply.js';
import { graphEntryVectorFeed } from '../projections/vectors/feed.js';
import { createVectorStore } from '../projections/vectors/vector-store.js';
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
  readonly provider: EmbeddingProvider;
  readonly cache: EmbeddingCache;
  readonly hooks: RebuildHooks;
  /** The clock of set-aside records (damaged snapshots). */
  readonly now?: () => Date;
}

/** The vector projection reads the embedding cache, keyed exactly as the engine filled it. */
export function cacheVectorSource(provider: EmbeddingProvider, cache: EmbeddingCache): VectorSource {
  const fpKey = fingerprintKey(provider.fingerprint);
  return {
    fingerprint: fpKey,
    dimension: provider.fingerprint.dimension ?? 0,
    keyOf: (text) => cache.keyOf(truncateForEmbedding(text, provider.maxInputChars)),
    lookup: (key) => cache.get(fpKey, key),
  };
}

/** Opens every projection and the read APIs over their live generations. */
export function openIndexes(options: IndexOptions) {
  const { db, log } = options;
  const lockedHead = sqliteLockedHead(db);
  const runner = createProjectionRunner({
    db, log, projections: engineProjections, pageSize: options.pageSize, lockedHead, hooks: options.hooks,
  });
  const source = cacheVectorSource(options.provider, options.cache);
  const dir = join(options.dataDir, 'vectors');
  const clock = options.now ? { now: options.now } : {};
  const vectors = createVectorStore({ db, log, dir, source, pageSize: options.pageSize, lockedHead, ...clock });
  // Graph entries get vectors of their own, from the same cache, in the same folder.
  const graphVectors = createVectorStore({ db, log, dir, source, feed: graphEntryVectorFeed, pageSize: options.pageSize, lockedHead, ...clock });
  return {
    runner,
    vectors,
    graphVectors,
    ...createReadModels(db, (name, table) => runner.liveTable(name, table)),
    async catchUp(): Promise<void> {
      await runner.catchUp();
      await Promise.all([vectors.catchUp(), graphVectors.catchUp()]);
    },
  };
}

export type Indexes = ReturnType<typeof openIndexes>;

/**
 * Rebuilds both vector indexes and switches to them whatever share of embeddings is missing (those
 * items stay pending for maintenance): the old index must not stay live (an erasure, a rekeyed cache).
 */
export async function rebuildVectorIndexes(indexes: Pick<Indexes, 'vectors' | 'graphVectors'>): Promise<void> {
  for (const store of [indexes.vectors, indexes.graphVectors]) {
    const result = await store.rebuild({ maxFailureRatio: 1, fresh: true });
    if (result.status !== 'completed') throw new Error(`the ${store.feed.name} rebuild did not complete: ${result.status} ${result.reason ?? ''}`.trim());
  }
}
