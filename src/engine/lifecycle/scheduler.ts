import { setImmediate } from 'node:timers/promises';
import { dueDates, firstSlotDateAfter, nextDate, slotInstant } from '../../commands/lifecycle/calendar.js';
import type { DecaySettings } from '../../commands/lifecycle/settings.js';
import type { Environment } from '../clock.js';
import type { TickReceipt } from './tick.js';

export interface SchedulerDeps {
  readonly env: Environment;
  readonly decay: DecaySettings;
  readonly lastTickedDate: () => string | null;
  /** When the store's first event happened (the first tick is the first slot after it); null for an empty log. */
  readonly firstEventAt: () => Promise<Date | null>;
  readonly tickDate: (date: string) => Promise<TickReceipt>;
  /** What runs once after the day's ticks: consolidation, the daily backup. */
  readonly afterTicks: (now: Date, signal: AbortSignal) => Promise<void>;
  readonly onError: (error: unknown) => void;
}

export interface SchedulerStatus {
  readonly running: boolean;
  readonly tasks: number;
  readonly nextTick: string | null;
  readonly lastError: string | null;
}

/**
 * The lifecycle's clock (ADR 29): the scheduler decides when, the tick decides what. On start it
 * ticks every missed day in order, then sleeps until the next tick hour. Its work runs as tracked
 * background tasks, one after another; `close` stops the timer, asks the running work to stop at
 * its next step (a tick is one append: it is in the log whole or not at all) and waits a bounded time.
 */
export function createScheduler(deps: SchedulerDeps) {
  const { hour, timeZone } = deps.decay;
  const tasks = new Set<Promise<unknown>>();
  const controller = new AbortController();
  let chain: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  let nextTick: Date | null = null;
  let running = false;
  let lastError: string | null = null;

  /** Runs `work` after what is queued, as a tracked task. */
  const track = <T>(work: () => Promise<T>): Promise<T> => {
    const task = chain.then(work);
    chain = task.catch(() => undefined);
    tasks.add(task);
    void task.catch(() => undefined).finally(() => tasks.delete(task));
    return task;
  };

  /** The first date not ticked yet: the day after the last tick, or on a store never ticked the first slot after its first event (null: an empty log). */
  const firstUnticked = async (): Promise<string | null> => {
    const last = deps.lastTickedDate();
    if (last) return nextDate(last);
    const first = await deps.firstEventAt();
    return first ? firstSlotDateAfter(first, hour, timeZone) : null;
  };

  /** The dates whose tick hour has come and that were not ticked yet, in order. */
  const missedDates = async (now: Date): Promise<string[]> => {
    const first = await firstUnticked();
    return first ? dueDates(first, now, hour, timeZone) : [];
  };

  /** Every missed tick, then (when any ran) what follows the day's ticks, once. */
  const catchUp = (now: Date = deps.env.now()): Promise<TickReceipt[]> =>
    track(async () => {
      const done: TickReceipt[] = [];
      for (const date of await missedDates(now)) {
        // SQLite is synchronous: without a turn of the event loop between ticks a long catch-up
        // would hold every other caller (and close) until its last day.
        await setImmediate();
        if (controller.signal.aborted) break;
        done.push(await deps.tickDate(date));
      }
      if (done.some((t) => t.ticked) && !controller.signal.aborted) await deps.afterTicks(now, controller.signal);
      return done;
    });

  /** The slot of the next date to tick: the day after the last tick, or the first tick hour after now. */
  const nextSlot = (now: Date): Date => {
    const last = deps.lastTickedDate();
    return slotInstant(last ? nextDate(last) : firstSlotDateAfter(now, hour, timeZone), hour, timeZone);
  };

  /** The next slot, or null while the read model of past ticks is stopped at an event (ADR 23); the catch-up records why. */
  const knownSlot = (now: Date): Date | null => {
    try {
      return nextSlot(now);
    } catch {
      return null;
    }
  };

  const scheduleNext = (): void => {
    if (!running || controller.signal.aborted) return;
    const now = deps.env.now();
    nextTick = knownSlot(now);
    // A tick that is due already failed just now (or was stopped, or its read model is): try again in a minute, not in a loop.
    const due = nextTick ? nextTick.getTime() - now.getTime() : 0;
    const delay = Math.min(due > 0 ? due : lastError ? 60_000 : 0, 2 ** 31 - 1);
    timer = setTimeout(() => void run(), delay);
    timer.unref();
  };

  const run = (): Promise<void> =>
    catchUp()
      .then(() => {
        lastError = null;
      }, (error: unknown) => {
        lastError = error instanceof Error ? error.message : String(error);
        deps.onError(error);
      })
      .finally(scheduleNext);

  return {
    /** Catches up the missed days in the background, then keeps ticking at the tick hour. */
    start(): Promise<void> {
      if (running) return Promise.resolve();
      running = true;
      return run();
    },
    catchUp,
    /** The next date to tick and its slot (null: an empty log). */
    nextDue: async (): Promise<{ date: string; at: Date } | null> => {
      const date = await firstUnticked();
      return date ? { date, at: slotInstant(date, hour, timeZone) } : null;
    },
    /** Runs `work` as a tracked task in the scheduler's queue (manual ticks, consolidation on demand). */
    track,
    /** Waits for every queued task. */
    idle: async (): Promise<void> => {
      while (tasks.size > 0) await Promise.allSettled([...tasks]);
    },
    status: (): SchedulerStatus => ({
      running, tasks: tasks.size, lastError,
      nextTick: ((running && nextTick) || knownSlot(deps.env.now()))?.toISOString() ?? null,
    }),
    /** Stops the timer first, then cancels and waits for the running tasks, at most `timeoutMs`; returns how many did not settle. */
    async close(timeoutMs: number): Promise<number> {
      running = false;
      if (timer) clearTimeout(timer);
      controller.abort();
      let wait: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => (wait = setTimeout(() => resolve('timeout'), timeoutMs)));
      await Promise.race([Promise.allSettled([...tasks]), timeout]).finally(() => clearTimeout(wait));
      return tasks.size;
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;
