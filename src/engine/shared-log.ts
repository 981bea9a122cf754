import type { EventStoreDbEventLog } from '../events/log/eventstore-event-log.js';
import type { SealedEventLog } from '../events/log/sealed-log.js';
import type { ErasureDeps } from './erase/index.js';
import { startFollower, type Follower } from './follow.js';
import { createRemoteErasures } from './remote-erasure.js';

export interface SharedLogDeps extends ErasureDeps {
  /** The log as EventStoreDB: its subscription feeds the follower. */
  readonly shared: EventStoreDbEventLog;
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
  const follower: Follower | null = deps.follow ? startFollower({ log: deps.shared, indexes: deps.indexes, onErasures: remote.apply }) : null;
  return {
    /** Notes an erasure this node performs itself, before it is recorded, so the follower leaves it alone. */
    erasing: (erasureId: string): void => remote.mark(erasureId, 0n),
    status: () => ({ namespace: deps.shared.namespace, follower: follower?.status() ?? null }),
    idle: async (): Promise<void> => follower?.idle(),
    stop: async (): Promise<void> => follower?.stop(),
  };
}

export type SharedLog = Awaited<ReturnType<typeof joinSharedLog>>;

/** The log as the erasure process sees it: `noting` hears each erasure's id before its SubjectErased is appended. */
export function notingErasures(log: SealedEventLog, noting: (erasureId: string) => void): SealedEventLog {
  return {
    ...log,
    eraseSubject: (subject, record) =>
      log.eraseSubject(subject, (erasure) => {
        const built = record(erasure);
        if (built.event.type === 'SubjectErased') noting(built.event.data.erasureId);
        return built;
      }),
  };
}
