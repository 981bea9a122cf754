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
  z.object({
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

/** An update's changes: at least one must be present. */
export const changesOf = <S extends z.ZodObject>(fields: S) =>
  fields.partial().strict().refine((c) => Object.keys(c).length > 0, 'at least one change is required');

export const memoryChangesSchema = changesOf(memoryChangeFields);

export const memoryUpdated = defineEvent(
  'MemoryUpdated',
  1,
  z.object({ memoryId: idSchema, changes: memoryChangesSchema }),
);

export const memoriesAccessed = defineEvent(
  'MemoriesAccessed',
  1,
  z.object({
    batchId: idSchema,
    accesses: z
      .array(z.object({ memoryId: idSchema, count: z.number().int().positive(), lastAccessedAt: timestampSchema }).strict())
      .min(1),
  }),
);

export const memoryImportanceDecayed = defineEvent(
  'MemoryImportanceDecayed',
  1,
  z.object({ memoryId: idSchema, tickId: idSchema, from: importanceSchema, to: importanceSchema }),
);

export const memoryArchived = defineEvent(
  'MemoryArchived',
  1,
  z.object({ memoryId: idSchema, reason: z.string().min(1).max(500) }),
);

export const memoryRestored = defineEvent('MemoryRestored', 1, z.object({ memoryId: idSchema }));

export const memoryForgotten = defineEvent(
  'MemoryForgotten',
  1,
  z.object({ memoryId: idSchema, reason: z.string().min(1).max(500) }),
);

export const memoriesConsolidated = defineEvent(
  'MemoriesConsolidated',
  1,
  z.object({ memoryId: idSchema, mergedMemoryIds: z.array(idSchema).min(2) }),
);

/** The engine could not embed the memory; the document stays and maintenance retries. */
export const memoryEmbeddingFailed = defineEvent(
  'MemoryEmbeddingFailed',
  1,
  z.object({ memoryId: idSchema, fingerprint: z.string().min(1), error: z.string().min(1).max(2000) }),
);

/** The embedding is now in the cache: vector indexes pick it up. */
export const memoryEmbeddingRepaired = defineEvent(
  'MemoryEmbeddingRepaired',
  1,
  z.object({ memoryId: idSchema, fingerprint: z.string().min(1) }),
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
