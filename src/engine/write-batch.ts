import type { z } from 'zod';
import { commandSchemasFor, type MemoryCommandSchemas } from '../commands/memory/commands.js';
import type { Limits } from '../events/bounds.js';
import { parseOrThrow, ValidationError } from '../events/errors.js';
import type { EventLog, StreamAppend } from '../events/log/event-log.js';
import type { EmbeddingCache, EmbeddingProvider } from '../providers/embeddings/index.js';
import type { Environment } from './clock.js';
import { importStreams, type ImportedMemory } from './import-batch.js';
import type { Indexes } from './indexes.js';
import { commandMetadata } from './system-events.js';
import type { CallContext, WriteReceipt } from './write-path.js';

type WriteMemoryData = z.output<MemoryCommandSchemas['WriteMemory']>;

export interface WriteBatchOptions {
  /** Memories per append (one transaction) and per catch-up of the read models; default 256. */
  readonly batchSize?: number;
  /** Called after each batch is appended and every read model has caught up with it. */
  readonly onProgress?: (progress: { readonly written: number; readonly total: number }) => void;
}

export interface BatchWriterDeps {
  readonly log: EventLog;
  readonly env: Environment;
  readonly indexes: Pick<Indexes, 'documents' | 'atoms' | 'catchUp' | 'catchUpSoon'>;
  readonly provider: EmbeddingProvider;
  readonly cache: EmbeddingCache;
  readonly defaultActor: string;
  readonly limits: Limits;
  /** Drops what the engine holds in memory from the log (the recall cache) after each append. */
  readonly invalidate: () => void;
}

export const defaultWriteBatch = 256;
/** Stands in for an id the batch makes later, so every input is checked before anything is written. */
const idToCome = 'to-be-assigned';

/** A memory input whose id the engine makes (an object naming no `memoryId`). */
export const isNewMemory = (input: unknown): input is object =>
  typeof input === 'object' && input !== null && !Array.isArray(input) && !('memoryId' in input);

/**
 * `writeMemories`: many WriteMemory commands at the cost of few. Every input is checked first (a
 * bad one refuses the call and nothing is written); then, batch by batch, the graph links, atoms
 * and embeddings of the batch are decided together, appended in one atomic append (one
 * transaction), and the read models catch up once. The log is the one writing them one by one
 * with `writeMemory` would make: the same events, ids and clock readings in the same order.
 */
export function createBatchWriter(deps: BatchWriterDeps) {
  /** Checked as writeMemory checks it; a new memory with a stand-in id (made when it is written). */
  const parse = (input: unknown, path?: string): WriteMemoryData =>
    parseOrThrow(commandSchemasFor(deps.limits).WriteMemory, isNewMemory(input) ? { ...input, memoryId: idToCome } : input, path);
  const check = (inputs: readonly unknown[]): WriteMemoryData[] => {
    const seen = new Set<string>();
    return inputs.map((input, i) => {
      const data = parse(input, `inputs[${i}]`);
      if (isNewMemory(input)) return data;
      if (seen.has(data.memoryId) || deps.indexes.documents.get(data.memoryId) !== undefined) {
        throw new ValidationError(`inputs[${i}].memoryId`, `memory ${data.memoryId} ${seen.has(data.memoryId) ? 'appears twice' : 'already exists'}; nothing was written`);
      }
      seen.add(data.memoryId);
      return data;
    });
  };

  const append = async (appends: readonly StreamAppend[]) => {
    // The read models start on the batch once it is committed, while the WAL syncs.
    if (deps.log.appendAll) return deps.log.appendAll(appends, { onCommitted: () => deps.indexes.catchUpSoon() });
    // A log that appends one stream at a time (EventStoreDB): each memory is still all or nothing.
    const results = [];
    for (const part of appends) results.push(await deps.log.append(part.streamId, part.events, { expectedRevision: part.expectedRevision ?? 'any' }));
    return results;
  };

  /** One batch of checked memories, each with its caller's context: one append, one catch-up. */
  const writeBatch = async (entries: readonly CheckedWrite[]): Promise<WriteReceipt[]> => {
    // Read lazily: a memory's id is made just before its command's metadata, as writeMemory makes them.
    function* batch(): Generator<ImportedMemory & { ctx: CallContext }> {
      for (const { data, ctx } of entries) {
        yield { data: data.memoryId === idToCome ? { ...data, memoryId: deps.env.newId() } : data, archived: false, ctx };
      }
    }
    const appends = await importStreams(batch(), {
      atoms: deps.indexes.atoms, provider: deps.provider, cache: deps.cache, newId: deps.env.newId,
      metadata: ({ ctx }) => commandMetadata(deps.env, ctx.actor ?? deps.defaultActor, ctx),
    });
    try {
      const results = await append(appends);
      return appends.map((part, i) => {
        const failed = part.events.find((e) => e.type === 'MemoryEmbeddingFailed');
        const memoryId = part.events[0]?.type === 'MemoryWritten' ? part.events[0].data.memoryId : '';
        return {
          memoryId, position: results[i]?.lastPosition ?? null,
          ...(failed?.type === 'MemoryEmbeddingFailed' ? { embeddingError: failed.data.error } : {}),
        };
      });
    } finally {
      deps.invalidate();
      await deps.indexes.catchUp();
    }
  };

  async function writeMemories(inputs: readonly unknown[], ctx: CallContext = {}, options: WriteBatchOptions = {}): Promise<WriteReceipt[]> {
    const checked = check(inputs);
    const size = options.batchSize ?? defaultWriteBatch;
    if (!Number.isInteger(size) || size < 1) throw new ValidationError('batchSize', `must be a positive integer, got ${size}`);
    const receipts: WriteReceipt[] = [];
    for (let from = 0; from < checked.length; from += size) {
      receipts.push(...(await writeBatch(checked.slice(from, from + size).map((data) => ({ data, ctx })))));
      options.onProgress?.({ written: receipts.length, total: checked.length });
    }
    return receipts;
  }
  return {
    writeMemories,
    writeBatch,
    /** One new memory without an id, checked as writeMemory checks it (the id is made when it is written). */
    checkNew: (input: unknown): WriteMemoryData => parse(input),
  };
}

/** A memory input checked for a batch, and the context of the call that gave it. */
export interface CheckedWrite {
  readonly data: WriteMemoryData;
  readonly ctx: CallContext;
}
