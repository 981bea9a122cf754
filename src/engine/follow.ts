import { auditTime, tap, type Subscription } from 'rxjs';
import type { EventLog, RecordedEvent } from '../events/log/event-log.js';
import type { Indexes } from './indexes.js';

export interface FollowerDeps {
  readonly log: EventLog;
  readonly indexes: Indexes;
  /** SubjectErased events this node did not write itself: their content must leave its read models too. */
  readonly onErasures: (events: readonly RecordedEvent[]) => Promise<unknown>;
}

/**
 * Keeps a node's read models caught up with a shared log (ADR 27): the log's subscription (catch-up
 * then live) wakes a catch-up of every projection, and every SubjectErased it brings is handed on.
 * Work is serialised; a failed round is remembered and the next event tries again.
 */
export function startFollower(deps: FollowerDeps) {
  let stopped = false;
  let work: Promise<void> = Promise.resolve();
  let lastError: string | null = null;
  const erasures: RecordedEvent[] = [];
  const round = (): void => {
    work = work
      .then(async () => {
        if (stopped) return;
        await deps.indexes.catchUp();
        const batch = erasures.splice(0);
        if (batch.length > 0) await deps.onErasures(batch);
        lastError = null;
      })
      .catch((error: unknown) => {
        lastError = error instanceof Error ? error.message : String(error);
      });
  };
  let subscription: Subscription | null = deps.log
    .subscribe({ from: deps.indexes.appliedPosition() + 1n })
    .pipe(
      tap((event) => {
        if (event.type === 'SubjectErased') erasures.push(event);
      }),
      auditTime(10),
    )
    .subscribe({
      next: () => round(),
      error: (error: unknown) => {
        lastError = error instanceof Error ? error.message : String(error);
      },
    });
  return {
    status: () => ({ following: !stopped && subscription !== null, lastError }),
    /** Resolves when the work started so far is done (tests, shutdown). */
    idle: (): Promise<void> => work,
    async stop(): Promise<void> {
      stopped = true;
      subscription?.unsubscribe();
      subscription = null;
      await work;
    },
  };
}

export type Follower = ReturnType<typeof startFollower>;
