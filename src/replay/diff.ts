import type { MemoryDocument } from '../queries/documents.js';

/** The fields a diff compares; access statistics and `updatedAt` are bookkeeping, not content. */
export const diffFields = [
  'text', 'importance', 'status', 'statusReason', 'sessionId', 'personaId', 'userId',
  'topics', 'keyFacts', 'participants', 'sentiment', 'mergedFrom',
] as const satisfies readonly (keyof MemoryDocument)[];

type DiffField = (typeof diffFields)[number];

export interface FieldChange {
  readonly field: DiffField;
  readonly before: unknown;
  readonly after: unknown;
}

export interface MemoryDiff {
  /** Live (not forgotten) at `to`, absent at `from`. */
  readonly added: MemoryDocument[];
  /** Present and not forgotten at both points, with at least one field changed (archiving included). */
  readonly changed: { readonly memoryId: string; readonly changes: FieldChange[] }[];
  /** Forgotten at `to`, not at `from`; `before` is the memory as it was (null when it was written and forgotten between). */
  readonly forgotten: { readonly memoryId: string; readonly before: MemoryDocument | null; readonly reason: string | null }[];
  /** Archived at `to`, active at `from`. */
  readonly archived: { readonly memoryId: string; readonly reason: string | null }[];
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** What happened to the memories between two states, each given as every document it held. */
export function diffDocuments(from: readonly MemoryDocument[], to: readonly MemoryDocument[]): MemoryDiff {
  const before = new Map(from.map((d) => [d.memoryId, d]));
  const diff: MemoryDiff = { added: [], changed: [], forgotten: [], archived: [] };
  for (const after of [...to].sort((a, b) => a.memoryId.localeCompare(b.memoryId))) {
    const was = before.get(after.memoryId);
    if (after.status === 'forgotten') {
      if (was?.status !== 'forgotten') diff.forgotten.push({ memoryId: after.memoryId, before: was ?? null, reason: after.statusReason });
      continue;
    }
    if (!was) {
      diff.added.push(after);
      continue;
    }
    const changes = diffFields.filter((f) => !same(was[f], after[f])).map((field) => ({ field, before: was[field], after: after[field] }));
    if (changes.length > 0) diff.changed.push({ memoryId: after.memoryId, changes });
    if (after.status === 'archived' && was.status === 'active') diff.archived.push({ memoryId: after.memoryId, reason: after.statusReason });
  }
  return diff;
}
