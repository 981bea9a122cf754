import { z } from 'zod';
import type { AtomStatus } from '../../events/atom.js';
import type { EventData, EventOf } from '../../events/catalog.js';
import { importanceSchema, labels, nonEmptyText, sourceMessageSchema } from '../../events/fields.js';
import { boundedText, boundedTotal, fixedLimits, type Limits } from '../../events/bounds.js';
import { changesOf, memoryChangeFields, memoryScopeFields } from '../../events/memory.js';
import { lazyPer } from '../../events/lazy.js';
import { idSchema } from '../../events/metadata.js';
import type { Command, EventBody } from '../decider.js';

const reason = z.string().min(1).max(500);

/**
 * Command inputs, checked at the boundary: the same field rules as the events they produce, and
 * the configured size limits on the texts (ADR 23), so nothing over them reaches the log.
 */
export function createMemoryCommandSchemas(limits: Limits) {
  const text = boundedText(nonEmptyText, limits.memoryTextBytes, 'memoryTextBytes');
  const source = sourceMessageSchema.extend({ content: boundedText(z.string(), limits.messageBytes, 'messageBytes') });
  const sources = boundedTotal(z.array(source).max(fixedLimits.sourcesPerMemory), (s) => s.content, limits.sourcesBytes, 'sourcesBytes');
  return {
    WriteMemory: z
      .object({
        memoryId: idSchema,
        text,
        importance: importanceSchema.default(0.5),
        sessionId: memoryScopeFields.sessionId.default(null),
        personaId: memoryScopeFields.personaId.default(null),
        userId: memoryScopeFields.userId.default(null),
        topics: labels.default([]),
        keyFacts: labels.default([]),
        participants: labels.default([]),
        sentiment: z.string().max(100).nullable().default(null),
        sources: sources.default([]),
      })
      .strict(),
    UpdateMemory: z.object({ memoryId: idSchema, changes: changesOf(memoryChangeFields.extend({ text })) }).strict(),
    ForgetMemory: z.object({ memoryId: idSchema, reason: reason.default('forgotten on request') }).strict(),
    ArchiveMemory: z.object({ memoryId: idSchema, reason: reason.default('archived on request') }).strict(),
    RestoreMemory: z.object({ memoryId: idSchema }).strict(),
  } as const;
}

export type MemoryCommandSchemas = ReturnType<typeof createMemoryCommandSchemas>;

/**
 * The command schemas of one limits object, built at their first use and then shared: a store
 * opened to read (status, search) never builds them, and the write path, the batch writer and the
 * import share one set (ADR 26).
 */
export const commandSchemasFor: (limits: Limits) => MemoryCommandSchemas = lazyPer(createMemoryCommandSchemas);

type Schemas = MemoryCommandSchemas;
export type MemoryCommandType = keyof Schemas;
export type MemoryCommandData<T extends MemoryCommandType> = z.output<Schemas[T]>;

/**
 * What the engine derived before the command (graph links, atoms): appended with the memory's own
 * event in one atomic append, so the log never holds a memory without its derived facts.
 */
export type DerivedEvent = EventBody<EventOf<'GraphEntriesLinked' | 'AtomExtracted' | 'AtomReinforced' | 'AtomStateChanged'>>;

export type WriteMemory = Command<'WriteMemory', EventData<'MemoryWritten'>> & {
  readonly derived?: readonly DerivedEvent[];
  /** Set when the memory consolidates others: recorded in the same append as the memory (ADR 29). */
  readonly consolidates?: EventBody<EventOf<'MemoriesConsolidated'>>;
};
export type UpdateMemory = Command<'UpdateMemory', MemoryCommandData<'UpdateMemory'>> & {
  readonly derived?: readonly DerivedEvent[];
  /**
   * The statuses the read model shows for the memory's atoms: ticks move atoms in their own
   * streams, so only these say which ones a new text may still supersede.
   */
  readonly atomStatuses?: Readonly<Record<string, AtomStatus>>;
};
export type ForgetMemory = Command<'ForgetMemory', MemoryCommandData<'ForgetMemory'>>;
export type ArchiveMemory = Command<'ArchiveMemory', MemoryCommandData<'ArchiveMemory'>>;
export type RestoreMemory = Command<'RestoreMemory', MemoryCommandData<'RestoreMemory'>>;

export type MemoryCommand = WriteMemory | UpdateMemory | ForgetMemory | ArchiveMemory | RestoreMemory;
