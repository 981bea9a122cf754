import { z } from 'zod';
import { defineEvent } from './define.js';
import { importanceSchema, labels, nonEmptyText, optionalId, sourceMessageSchema } from './fields.js';
import { idSchema, timestampSchema } from './metadata.js';

export const memoryScopeFields = {
  sessionId: optionalId,
  personaId: optionalId,
  userId: optionalId,
};

export const memoryWritten = defineEvent(
  'MemoryWritten',
  2,
  () => z.object({
    memoryId: idSchema,
    text: nonEmptyText,
    importance: importanceSchema,
    ...memoryScopeFields,
    topics: labels,
    keyFacts: labels,
    participants: labels,
    sentiment: z.string().max(100).nullable(),
    sources: z.array(sourceMessageSchema).max(10_000),
  }),
);

/** The fields an update may change, each optional. */
export const memoryChangeFields = z.object({
  text: nonEmptyText,
  importance: importanceSchema,
  topics: labels,
  keyFacts: labels,
  participants: labels,
  sentiment: z.string().max(100).nullable(),
});

/**
 * An update's changes: at least one must be present. A key set to undefined is no change: it is not
 * in the stored JSON, so `{ keyFacts: undefined }` alone would be written and then fail to read back.
 */
export const changesOf = <S extends z.ZodObject>(fields: S) =>
  fields.partial().strict().refine((c) => Object.values(c).some((v) => v !== undefined), 'at least one change is required');

export const memoryChangesSchema = changesOf(memoryChangeFields);

export const memoryUpdated = defineEvent(
  'MemoryUpdated',
  1,
  () => z.object({ memoryId: idSchema, changes: memoryChangesSchema }),
);

export const memoriesAccessed = defineEvent(
  'MemoriesAccessed',
  1,
  () => z.object({
    batchId: idSchema,
    accesses: z
      .array(z.object({ memoryId: idSchema, count: z.number().int().positive(), lastAccessedAt: timestampSchema }).strict())
      .min(1),
  }),
);

/** One memory's change in a decay tick; the access counts say how much of the count the tick took away. */
export const importanceDecaySchema = z
  .object({
    memoryId: idSchema,
    from: importanceSchema,
    to: importanceSchema,
    accessFrom: z.number().int().min(0),
    accessTo: z.number().int().min(0),
  })
  .strict();

/** The memories one decay tick changed, up to 1,000 per event (v1 carried one memory). */
export const memoryImportanceDecayed = defineEvent(
  'MemoryImportanceDecayed',
  2,
  () => z.object({ tickId: idSchema, decays: z.array(importanceDecaySchema).min(1).max(1000) }),
);

export const memoryArchived = defineEvent(
  'MemoryArchived',
  1,
  () => z.object({ memoryId: idSchema, reason: z.string().min(1).max(500) }),
);

export const memoryRestored = defineEvent('MemoryRestored', 1, () => z.object({ memoryId: idSchema }));

export const memoryForgotten = defineEvent(
  'MemoryForgotten',
  1,
  () => z.object({ memoryId: idSchema, reason: z.string().min(1).max(500) }),
);

/** How a consolidation grouped its memories and what became of the originals. */
export const consolidationGroupingSchema = z.enum(['session', 'semantic']);
export const consolidationRetentionSchema = z.enum(['archive', 'forget']);

/** A new memory (`memoryId`) summarizes `mergedMemoryIds`; v2 adds the run, the grouping, the retention and why. */
export const memoriesConsolidated = defineEvent(
  'MemoriesConsolidated',
  2,
  () => z.object({
    memoryId: idSchema,
    mergedMemoryIds: z.array(idSchema).min(2),
    consolidationId: idSchema,
    grouping: consolidationGroupingSchema,
    retention: consolidationRetentionSchema,
    reason: z.string().min(1).max(500),
  }),
);

/** The engine could not embed the memory; the document stays and maintenance retries. */
export const memoryEmbeddingFailed = defineEvent(
  'MemoryEmbeddingFailed',
  1,
  () => z.object({ memoryId: idSchema, fingerprint: z.string().min(1), error: z.string().min(1).max(2000) }),
);

/** The embedding is now in the cache: vector indexes pick it up. */
export const memoryEmbeddingRepaired = defineEvent(
  'MemoryEmbeddingRepaired',
  1,
  () => z.object({ memoryId: idSchema, fingerprint: z.string().min(1) }),
);

export const memoryEvents = [
  memoryWritten,
  memoryUpdated,
  memoriesAccessed,
  memoryImportanceDecayed,
  memoryArchived,
  memoryRestored,
  memoryForgotten,
  memoriesConsolidated,
  memoryEmbeddingFailed,
  memoryEmbeddingRepaired,
] as const;
