import { z } from 'zod';
import { defineEvent } from './define.js';
import { idSchema } from './metadata.js';

const importFields = {
  importId: idSchema,
  memoryIds: z.array(idSchema).max(10_000),
};

/** An import was validated and is about to write these memories, each caused by the import. */
export const memoriesImportStarted = defineEvent(
  'MemoriesImportStarted',
  1,
  () => z.object({
    ...importFields,
    source: z.string().min(1).max(1000),
    format: z.enum(['native-json', 'external-json', 'csv']),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    bytes: z.number().int().min(0),
    duplicates: z.number().int().min(0),
  }),
);

/** Every memory of the import is written. */
export const memoriesImportCompleted = defineEvent(
  'MemoriesImportCompleted',
  1,
  () => z.object({ importId: idSchema, written: z.number().int().min(0) }),
);

/** A write failed part-way: the memories already written were forgotten again. */
export const memoriesImportRolledBack = defineEvent(
  'MemoriesImportRolledBack',
  1,
  () => z.object({ ...importFields, reason: z.string().min(1).max(2000) }),
);

export const transferEvents = [memoriesImportStarted, memoriesImportCompleted, memoriesImportRolledBack] as const;
