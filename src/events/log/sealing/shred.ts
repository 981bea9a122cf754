import type { ErasureCounts } from '../../erasure.js';
import type { SqliteDatabase } from '../sqlite-database.js';
import type { SealedKeyIndex } from './key-index.js';
import type { SubjectRef } from './keystore.js';

/** Which count of a SubjectErased each sealed event type adds to. */
export const countsByType: Readonly<Record<string, keyof ErasureCounts>> = {
  MemoryWritten: 'memories',
  MemoryUpdated: 'memoryUpdates',
  AtomExtracted: 'atoms',
  GraphEntriesLinked: 'graphLinks',
  MessageRecorded: 'messages',
};

/** Counts the stored events sealed under `keyId`, found by the key index (exact counts matter for the audit). */
export function countSealedUnder(db: SqliteDatabase, index: SealedKeyIndex, keyId: number | undefined): ErasureCounts {
  const counts: ErasureCounts = { memories: 0, memoryUpdates: 0, atoms: 0, graphLinks: 0, messages: 0, events: 0 };
  if (keyId === undefined) return counts;
  const rows = db
    .prepare<[string], { type: string; n: number }>(`SELECT type, count(*) AS n FROM events WHERE global_position IN (${index.positionsUnder}) GROUP BY type`)
    .all(JSON.stringify([keyId]));
  for (const { type, n } of rows) {
    const field = countsByType[type];
    if (field) counts[field] += n;
    counts.events += n;
  }
  return counts;
}

/** What the log needs to erase a subject: its current key, then the shredding itself. */
export interface SubjectErasure {
  readonly subject: SubjectRef;
  readonly keyId: number | undefined;
  readonly counts: ErasureCounts;
}
