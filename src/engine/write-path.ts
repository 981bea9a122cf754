import type { z } from 'zod';
import { stampEvents, type CommandMetadata } from '../commands/decider.js';
import { handleCommand } from '../commands/handler.js';
import { commandSchemasFor, type DerivedEvent, type MemoryCommandSchemas, type MemoryCommand, type WriteMemory } from '../commands/memory/commands.js';
import type { Limits } from '../events/bounds.js';
import { memoryDecider } from '../commands/memory/decider.js';
import { parseOrThrow } from '../events/errors.js';
import type { EventLog } from '../events/log/event-log.js';
import { streams } from '../events/streams.js';
import type { Environment } from './clock.js';
import { deriveEvents } from './derive.js';
import { commandMetadata } from './system-events.js';
import { embedWithCache, fingerprintKey, type EmbeddingCache, type EmbeddingProvider } from '../providers/embeddings/index.js';
import type { Indexes } from './indexes.js';

export interface CallContext {
  readonly actor?: string;
  readonly correlationId?: string;
  readonly causationId?: string;
}

export interface WriteReceipt {
  readonly memoryId: string;
  /** Global position of the last event written, or null when the command changed nothing. */
  readonly position: bigint | null;
  /** Set when the memory was kept without a vector; maintenance embeds it later. */
  readonly embeddingError?: string;
  /** Set when this node's read models had not reached the write when the read-your-writes timeout ran out. */
  readonly readModelsBehind?: true;
}

/** What only the engine's own writes add to a command. */
export interface WriteExtras {
  readonly consolidates?: WriteMemory['consolidates'];
}

interface WritePathDeps {
  readonly log: EventLog;
  readonly env: Environment;
  readonly indexes: Indexes;
  readonly provider: EmbeddingProvider;
  readonly cache: EmbeddingCache;
  readonly defaultActor: string;
  /** How long a write waits for the read models to reach it (default 5 s). */
  readonly readYourWritesTimeoutMs?: number;
  /** The configured size limits (`limits`), checked by the command schemas. */
  readonly limits: Limits;
}

/**
 * Fills the embedding cache for a memory's text and its graph entries' texts, in one provider
 * call, so both vector projections find them; a provider failure is returned, never thrown.
 */
export async function embedMemory(provider: EmbeddingProvider, cache: EmbeddingCache, text: string, derived: readonly DerivedEvent[] = []): Promise<string | undefined> {
  const entries = derived.flatMap((e) => (e.type === 'GraphEntriesLinked' ? e.data.entries.map((entry) => entry.text) : []));
  try {
    await embedWithCache(provider, cache, [text, ...entries]);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** MemoryEmbeddingFailed for a memory its command wrote: maintenance embeds it later. */
export function embeddingFailedEvents(provider: EmbeddingProvider, memoryId: string, error: string, meta: CommandMetadata) {
  const body = {
    type: 'MemoryEmbeddingFailed' as const,
    schemaVersion: 1 as const,
    data: { memoryId, fingerprint: fingerprintKey(provider.fingerprint), error: error.slice(0, 2000) },
  };
  return stampEvents([body], { ...meta, commandId: `${meta.commandId}.embedding` });
}

/** Commands through the decider, with everything non-deterministic done before the append. */
export function createWritePath(deps: WritePathDeps) {
  const { log, env, indexes } = deps;
  const metadataFor = (ctx: CallContext): CommandMetadata => commandMetadata(env, ctx.actor ?? deps.defaultActor, ctx);

  const recordEmbeddingFailure = async (memoryId: string, error: string, meta: CommandMetadata): Promise<void> => {
    await log.append(streams.memory(memoryId), embeddingFailedEvents(deps.provider, memoryId, error, meta), { expectedRevision: 'stream_exists' });
  };

  /** The read model's atom statuses of a memory (an erased atom counts as forgotten: nothing moves it). */
  const atomStatuses = (memoryId: string) =>
    Object.fromEntries(indexes.atoms.ofMemory(memoryId).map((a) => [a.atomId, (a.status as string) === 'erased' ? 'forgotten' : a.status]));

  return async function run<T extends MemoryCommand['type']>(type: T, input: unknown, ctx: CallContext, extra: WriteExtras = {}): Promise<WriteReceipt> {
    const schema: z.ZodType<{ memoryId: string }> = commandSchemasFor(deps.limits)[type];
    const data = parseOrThrow(schema, input) as MemoryCommand['data'];
    const metadata = metadataFor(ctx);
    let derived: DerivedEvent[] | undefined;
    let text: string | undefined;
    if (type === 'WriteMemory') {
      const memory = data as z.output<MemoryCommandSchemas['WriteMemory']>;
      text = memory.text;
      derived = deriveEvents(memory, metadata.now, env.newId, indexes.atoms);
    } else if (type === 'UpdateMemory') {
      const update = data as z.output<MemoryCommandSchemas['UpdateMemory']>;
      const current = indexes.documents.get(update.memoryId);
      text = update.changes.text;
      if (current && text !== undefined) {
        derived = deriveEvents({ ...current, ...update.changes, text, memoryId: update.memoryId }, metadata.now, env.newId, indexes.atoms);
      }
    }
    const embeddingError = text === undefined ? undefined : await embedMemory(deps.provider, deps.cache, text, derived);
    const statuses = type === 'UpdateMemory' && derived ? { atomStatuses: atomStatuses(data.memoryId) } : {};
    const consolidates = extra.consolidates ? { consolidates: extra.consolidates } : {};
    const command = { type, data, metadata, ...(derived ? { derived } : {}), ...statuses, ...consolidates } as MemoryCommand;
    const result = await handleCommand(log, memoryDecider, streams.memory(data.memoryId), command, { onCommitted: () => indexes.catchUpSoon() });
    if (embeddingError && result.events.length > 0) await recordEmbeddingFailure(data.memoryId, embeddingError, metadata);
    // Read-your-writes: the caller sees its memory in every read model when this returns.
    const reached = result.lastPosition === null ? (await indexes.catchUp(), true) : await indexes.reach(result.lastPosition, deps.readYourWritesTimeoutMs ?? 5000);
    return {
      memoryId: data.memoryId, position: result.lastPosition, ...(embeddingError ? { embeddingError } : {}), ...(reached ? {} : { readModelsBehind: true as const }),
    };
  };
}
