import { stampEvents, type EventBody } from '../commands/decider.js';
import type { EventLog } from '../events/log/event-log.js';
import { streams } from '../events/streams.js';
import type { Environment } from './clock.js';

interface AccessBatcherOptions {
  readonly maxIds?: number;
  readonly flushMs?: number;
  /** What the batch causes beyond the statistics (atom reinforcements), appended with it. */
  readonly effects?: (accesses: readonly { memoryId: string; lastAccessedAt: string }[]) => Promise<EventBody[]>;
}

/**
 * Access statistics of recalled memories, gathered and appended as one MemoriesAccessed event per
 * batch (on size, on a timer, on close), never one write per memory.
 */
export function createAccessBatcher(log: EventLog, env: Environment, options: AccessBatcherOptions = {}) {
  const counts = new Map<string, { count: number; lastAccessedAt: string }>();
  let timer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> = Promise.resolve();

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (counts.size === 0) return flushing;
    const accesses = [...counts].map(([memoryId, a]) => ({ memoryId, ...a }));
    counts.clear();
    const batchId = env.newId();
    const body = { type: 'MemoriesAccessed' as const, schemaVersion: 1 as const, data: { batchId, accesses } };
    const meta = { commandId: batchId, now: env.now().toISOString(), actor: 'system:recall' };
    // The effects are decided when the batch is written, after the batch before it was appended.
    flushing = flushing
      .then(async () => log.append(streams.access, stampEvents([body, ...((await options.effects?.(accesses)) ?? [])], meta)))
      .then(() => undefined);
    return flushing;
  };

  return {
    record(memoryIds: readonly string[], at: string): void {
      for (const memoryId of memoryIds) counts.set(memoryId, { count: (counts.get(memoryId)?.count ?? 0) + 1, lastAccessedAt: at });
      if (counts.size >= (options.maxIds ?? 100)) void flush().catch(() => undefined);
      else if (!timer && counts.size > 0) {
        timer = setTimeout(() => void flush().catch(() => undefined), options.flushMs ?? 1000);
        timer.unref();
      }
    },
    flush,
  };
}

export type AccessRecorder = Pick<ReturnType<typeof createAccessBatcher>, 'record'>;
