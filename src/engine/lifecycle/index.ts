import type { LifecycleSettings } from '../../commands/lifecycle/settings.js';
import type { EventLog } from '../../events/log/event-log.js';
import type { EmbeddingCache, EmbeddingProvider } from '../../providers/embeddings/index.js';
import type { LlmProvider } from '../../providers/llm/index.js';
import type { ManagedBackups } from '../backups/managed.js';
import type { Environment } from '../clock.js';
import type { Indexes } from '../indexes.js';
import type { CallContext, WriteExtras, WriteReceipt } from '../write-path.js';
import { createConsolidation } from './consolidate.js';
import { manualTickReceipt, type ManualTickReceipt } from './manual-tick.js';
import { createScheduler } from './scheduler.js';
import { createTicker } from './tick.js';

export interface LifecycleDeps {
  readonly log: EventLog;
  readonly env: Environment;
  readonly indexes: Indexes;
  readonly provider: EmbeddingProvider;
  readonly cache: EmbeddingCache;
  readonly llm: LlmProvider;
  readonly settings: LifecycleSettings;
  readonly backups: ManagedBackups;
  readonly dailyBackup: boolean;
  readonly write: (type: 'WriteMemory' | 'ArchiveMemory' | 'ForgetMemory', input: unknown, ctx: CallContext, extra?: WriteExtras) => Promise<WriteReceipt>;
  readonly changed: () => void;
}

/** The lifecycle (ADR 29): ticks, consolidation and their scheduler, over the engine's write path and read models. */
export function createLifecycle(deps: LifecycleDeps) {
  const { indexes, settings } = deps;
  const ticker = createTicker({ log: deps.log, indexes, settings, write: deps.write, changed: deps.changed });
  const consolidation = createConsolidation({
    indexes, env: deps.env, provider: deps.provider, cache: deps.cache, llm: deps.llm, settings: settings.consolidation, write: deps.write,
  });
  let lastError: string | null = null;
  const scheduler = createScheduler({
    env: deps.env,
    decay: settings.decay,
    lastTickedDate: () => indexes.lifecycle.lastTick()?.date ?? null,
    firstEventAt: async () => {
      const [first] = await deps.log.readAll({ from: 1n, limit: 1 });
      return first ? new Date(first.metadata.occurredAt) : null;
    },
    tickDate: (date) => ticker.tickDate(date),
    afterTicks: async (now, signal) => {
      if (settings.consolidation.daily) await consolidate(now, signal);
      if (deps.dailyBackup && !signal.aborted) {
        await deps.backups.take('daily');
        await deps.backups.prune(now);
      }
    },
    onError: (error) => (lastError = error instanceof Error ? error.message : String(error)),
  });

  /** A consolidation run: the backup first (a batch that archives or forgets), only when there is something to merge. */
  async function consolidate(now: Date = deps.env.now(), signal?: AbortSignal) {
    const planned = await consolidation.plan(now);
    if (planned.groups.length === 0) return { ...planned, consolidated: [], failed: [] };
    await deps.backups.take('before-consolidation');
    return consolidation.exec(now, signal);
  }

  return {
    scheduler,
    /** Starts the scheduler: the missed days first (in the background), then daily. */
    start: () => {
      // Originals a crash left unsettled are settled first, in the scheduler's queue.
      void scheduler.track(() => consolidation.settle()).catch((error: unknown) => (lastError = String(error)));
      return scheduler.start();
    },
    /**
     * `lmem tick [--at ISO]`: the scheduler's catch-up up to now or `at` (every date whose tick hour
     * has come and that was not ticked, in order, each as of its hour; then what follows the ticks).
     */
    tick: async (at: Date = deps.env.now()): Promise<ManualTickReceipt> => {
      const ticks = await scheduler.catchUp(at);
      const lastTickedDate = indexes.lifecycle.lastTick()?.date ?? null;
      return manualTickReceipt({ at, timeZone: settings.decay.timeZone, ticks, lastTickedDate, next: await scheduler.nextDue() });
    },
    /** Every missed day up to `now`, in order. */
    catchUp: (now?: Date) => scheduler.catchUp(now),
    consolidatePreview: (now?: Date) => scheduler.track(() => consolidation.plan(now)),
    consolidate: (now?: Date) => scheduler.track(() => consolidate(now)),
    settle: () => scheduler.track(() => consolidation.settle()),
    status() {
      // A lifecycle read model stopped at an event (ADR 23) cannot say its last tick; status still reports the rest.
      const failed = indexes.runner.status().find((p) => p.name === 'lifecycle')?.failed ?? null;
      const last = failed ? undefined : indexes.lifecycle.lastTick();
      const s = scheduler.status();
      return {
        lastTick: last ? { date: last.date, asOf: last.asOf, decayed: last.affected, atomTransitions: last.atomTransitions } : null,
        readModelFailed: failed !== null,
        nextTick: s.nextTick,
        nextConsolidation: settings.consolidation.daily ? s.nextTick : null,
        lastBackup: deps.backups.last() ?? null,
        scheduler: { running: s.running, tasks: s.tasks, lastError: s.lastError ?? lastError },
      };
    },
    close: (timeoutMs: number) => scheduler.close(timeoutMs),
  };
}

export type Lifecycle = ReturnType<typeof createLifecycle>;
