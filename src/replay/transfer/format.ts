import { z } from 'zod';
import { boundedText, defaultLimits, type Limits } from '../../events/bounds.js';
import { importanceSchema, labels, nonEmptyText } from '../../events/fields.js';
import { idSchema, timestampSchema } from '../../events/metadata.js';
import type { MemoryDocument } from '../../queries/documents.js';
import { toCsv } from './csv.js';

export const nativeFormat = 'livingmemory.memories';
export const nativeVersion = 1;
export const maxImportBytes = defaultLimits.importBytes;
export const maxImportEntries = defaultLimits.importEntries;

/** What an import writes for one entry: the fields of a WriteMemory, and whether to archive it after. */
export function createImportRowSchema(limits: Limits) {
  return z
    .object({
      text: boundedText(nonEmptyText, limits.memoryTextBytes, 'memoryTextBytes').transform((t) => t.trim()),
      importance: importanceSchema.default(0.5),
      sessionId: idSchema.nullable().default(null),
      personaId: idSchema.nullable().default(null),
      userId: idSchema.nullable().default(null),
      topics: labels.default([]),
      keyFacts: labels.default([]),
      participants: labels.default([]),
      sentiment: z.string().max(100).nullable().default(null),
      status: z.enum(['active', 'archived']).default('active'),
    })
    .strict();
}

/** One memory of a native export: the import fields plus where it came from (not imported). */
export function createNativeMemorySchema(limits: Limits) {
  return createImportRowSchema(limits).extend({
    memoryId: idSchema.optional(),
    createdAt: timestampSchema.optional(),
    updatedAt: timestampSchema.optional(),
  });
}

// Types only: the schemas are built by the import that parses with them, not by every command that loads this module (ADR 26).
export type ImportRow = z.output<ReturnType<typeof createImportRowSchema>>;
export type NativeMemory = z.input<ReturnType<typeof createNativeMemorySchema>>;

/** The columns of the CSV export, in order; list fields are JSON arrays. */
export const csvColumns = [
  'memoryId', 'text', 'importance', 'sessionId', 'personaId', 'userId',
  'topics', 'keyFacts', 'participants', 'sentiment', 'status', 'createdAt', 'updatedAt',
] as const;

export type CsvColumn = (typeof csvColumns)[number];

export function toNativeMemory(doc: MemoryDocument): NativeMemory & { memoryId: string } {
  return {
    memoryId: doc.memoryId,
    text: doc.text,
    importance: doc.importance,
    sessionId: doc.sessionId,
    personaId: doc.personaId,
    userId: doc.userId,
    topics: doc.topics,
    keyFacts: doc.keyFacts,
    participants: doc.participants,
    sentiment: doc.sentiment,
    status: doc.status === 'archived' ? 'archived' : 'active',
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/** Live memories only: a forgotten or erased one (ADR 19) is not exported, nor imported again as "[erased]". */
const exported = (d: MemoryDocument): boolean => d.status === 'active' || d.status === 'archived';

/** The native JSON export of live (active or archived) memories. */
export function nativeExport(docs: readonly MemoryDocument[], exportedAt: string) {
  return {
    format: nativeFormat,
    version: nativeVersion,
    exportedAt,
    memories: docs.filter(exported).map(toNativeMemory),
  };
}

/** The same memories as CSV, through the shared formula-escaping writer. */
export function csvExport(docs: readonly MemoryDocument[]): string {
  const rows = docs
    .filter(exported)
    .map(toNativeMemory)
    .map((m) => csvColumns.map((c) => {
      const v = m[c];
      return Array.isArray(v) ? JSON.stringify(v) : (v ?? null);
    }));
  return toCsv(csvColumns, rows);
}
