import type { EventStoreDbEventLog } from '../events/log/eventstore-event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import type { EmbeddingCache, EmbeddingProvider } from '../providers/embeddings/index.js';
import { startFollower, type Follower } from './follow.js';
import type { Indexes } from './indexes.js';
import { createRemoteErasures } from './remote-erasure.js';

export interface SharedLogDeps {
  readonly db: SqliteDatabase;
  readonly log: EventStoreDbEventLog;
  readonly indexes: Indexes;
  readonly provider: EmbeddingProvider;
  readonly cache: EmbeddingCache;
  readonly invalidate: () => void;
  /** True when this node's read models were empty before its first catch-up. */
  readonly startedEmpty: boolean;
  /** Keep the read models live by subscription (default); off for one-shot commands that want none. */
  readonly follow: boolean;
}

/**
 * A node of many on one EventStoreDB log (ADR 27): erasures other nodes recorded while this one was
 * away are applied to its read models, then a follower keeps them caught up and applies new ones.
 */
export async function joinSharedLog(deps: SharedLogDeps) {
  const remote = createRemoteErasures(deps);
  await remote.reconcile(deps.startedEmpty);
  const follower: Follower | null = deps.follow ? startFollower({ log: deps.log, indexes: deps.indexes, onErasures: remote.apply }) : null;
  return {
    /** Notes an erasure this node performs itself, before it is recorded, so the follower leaves it alone. */
    erasing: (erasureId: string): void => remote.mark(erasureId, 0n),
    status: () => ({ namespace: deps.log.namespace, follower: follower?.status() ?? null }),
    idle: async (): Promise<void> => follower?.idle(),
    stop: async (): Promise<void> => follower?.stop(),
  };
}

export type SharedLog = Awaited<ReturnType<typeof joinSharedLog>>;
