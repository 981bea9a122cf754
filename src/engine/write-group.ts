import { isNewMemory, type CheckedWrite } from './write-batch.js';
import type { CallContext, WriteReceipt } from './write-path.js';

export interface WriteGroupDeps {
  /** writeMemory's own path, for a call that finds no write of the group in flight. */
  readonly single: (input: unknown, ctx: CallContext) => Promise<WriteReceipt>;
  /** Makes the id of a memory written on the single path without one. */
  readonly newId: () => string;
  /** Checks a new memory's input as writeMemory would; throws the same ValidationError. */
  readonly check: (input: unknown) => CheckedWrite['data'];
  /**
   * Writes checked memories in one append and one catch-up, a receipt each (writeMemories' path);
   * null on a log that cannot append several streams at once (EventStoreDB): there a batch's
   * failure half-way would fail calls whose memories were written, so every call goes alone.
   */
  readonly batch: ((entries: readonly CheckedWrite[]) => Promise<WriteReceipt[]>) | null;
  /** At most this many memories per batch (default 256). */
  readonly maxBatch?: number;
}

interface Waiting extends CheckedWrite {
  readonly resolve: (receipt: WriteReceipt) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit for `writeMemory` (issue 17). A call that finds no write of the group in flight is
 * written at once on writeMemory's own path, so a host writing one memory at a time sees no change.
 * A call made while one is in flight is checked at once (a bad input fails alone, with writeMemory's
 * error), then waits; when the write in flight is done, every call that arrived meanwhile is written
 * in one batch: one embedding call, one append, one catch-up of the read models, as `writeMemories`
 * writes them. Concurrent writers (the HTTP door's requests, several agents) share those costs. A
 * failure of a batch's append fails each call of that batch, and nothing of it is written.
 */
export function createWriteGroup(deps: WriteGroupDeps) {
  const maxBatch = deps.maxBatch ?? 256;
  const waiting: Waiting[] = [];
  let running: Promise<void> | null = null;
  const alone = (input: unknown, ctx: CallContext): Promise<WriteReceipt> => deps.single(isNewMemory(input) ? { memoryId: deps.newId(), ...input } : input, ctx);

  const drain = async (writeBatch: NonNullable<WriteGroupDeps['batch']>): Promise<void> => {
    for (let shared = false; ; ) {
      // After a shared batch, a turn first: its callers that write again join the next one. Not
      // after a lone write: a caller writing one memory at a time stays on writeMemory's own path.
      if (shared) await new Promise((resolve) => setImmediate(resolve));
      // Read and cleared in the same turn as a call's check of `running`: no call is left waiting.
      if (waiting.length === 0) {
        running = null;
        return;
      }
      const batch = waiting.splice(0, maxBatch);
      shared = batch.length > 1;
      try {
        const receipts = await writeBatch(batch);
        batch.forEach((entry, i) => entry.resolve(receipts[i] as WriteReceipt));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
  };

  return {
    write(input: unknown, ctx: CallContext): Promise<WriteReceipt> {
      const writeBatch = deps.batch;
      // A memory named by the caller keeps writeMemory's own checks (it may exist already): never grouped.
      if (!isNewMemory(input) || !writeBatch) return alone(input, ctx);
      if (running === null) {
        const written = alone(input, ctx);
        const next = () => drain(writeBatch);
        running = written.then(next, next);
        return written;
      }
      let data: CheckedWrite['data'];
      try {
        data = deps.check(input);
      } catch (error) {
        return Promise.reject(error);
      }
      return new Promise((resolve, reject) => waiting.push({ data, ctx, resolve, reject }));
    },
    /** Resolves once every call made so far is written (or has failed). */
    idle: (): Promise<void> => running ?? Promise.resolve(),
  };
}
