import { stampEvents, type CommandMetadata, type EventBody } from '../commands/decider.js';
import { ConcurrencyError } from '../events/errors.js';
import type { EventLog, ExpectedRevision } from '../events/log/event-log.js';
import { streams } from '../events/streams.js';
import type { Environment } from './clock.js';

type Access = { readonly memoryId: string; readonly lastAccessedAt: string };

interface AccessBatcherOptions {
  readonly maxIds?: number;
  readonly flushMs?: number;
  /** What the batch causes beyond the statistics (atom reinforcements), appended with it. */
  readonly effects?: (accesses: readonly Access[]) => Promise<EventBody[]> | EventBody[];
  /** After a batch was written: the read models the effects read take it in before anyone decides on them again. */
  readonly written?: () => Promise<unknown>;
}

const maxAttempts = 5;

/**
 * Access statistics of recalled memories, gathered and appended as one MemoriesAccessed event per
 * batch (on size, on a timer, on close), never one write per memory.
 */
export function createAccessBatcher(log: EventLog, env: Environment, options: AccessBatcherOptions = {}) {
  const counts = new Map<string, { count: number; lastAccessedAt: string }>();
  let timer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> = Promise.resolve();
  // The access stream's revision as this batcher last wrote or read it; null until it needs one.
  let revision: ExpectedRevision | null = null;

  const streamRevision = async (): Promise<ExpectedRevision> => {
    const last = (await log.readStream(streams.access)).at(-1);
    return last ? last.streamRevision : 'no_stream';
  };

  /**
   * Effects with the revision they were decided at: another writer's batch in between may have
   * woken or reinforced the same atoms, so a conflict decides again. Statistics alone commute.
   */
  const write = async (body: EventBody, meta: CommandMetadata, accesses: readonly Access[]): Promise<void> => {
    for (let attempt = 1; ; attempt += 1) {
      // Read before the decision, so that any batch written after it fails this append.
      const known = revision;
      const effects = (await options.effects?.(accesses)) ?? [];
      if (effects.length > 0 && known === null) {
        revision = await streamRevision();
        continue;
      }
      const expectedRevision = effects.length === 0 || known === null ? 'any' : known;
      let next: bigint;
      try {
        next = (await log.append(streams.access, stampEvents([body, ...effects], meta), { expectedRevision })).nextExpectedRevision;
      } catch (error) {
        revision = null;
        if (!(error instanceof ConcurrencyError) || attempt >= maxAttempts) throw error;
        continue;
      }
      revision = next;
      await options.written?.();
      return;
    }
  };

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (counts.size === 0) return flushing;
    const accesses = [...counts].map(([memoryId, a]) => ({ memoryId, ...a }));
    counts.clear();
    const batchId = env.newId();
    const body = { type: 'MemoriesAccessed' as const, schemaVersion: 1 as const, data: { batchId, accesses } };
    const meta = { commandId: batchId, now: env.now().toISOString(), actor: 'system:recall' };
    // After the batch before: its effects must be in the read models this one decides on. A batch that
    // failed was reported to its flush's caller; it must not fail every batch after it.
    flushing = flushing.catch(() => undefined).then(() => write(body, meta, accesses));
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
