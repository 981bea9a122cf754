import type { ErasureCounts } from '../../erasure.js';
import type { SqliteDatabase } from '../sqlite-database.js';
import type { SubjectRef } from './keystore.js';

/** Which count of a SubjectErased each sealed event type adds to. */
export const countsByType: Readonly<Record<string, keyof ErasureCounts>> = {
  MemoryWritten: 'memories',
  MemoryUpdated: 'memoryUpdates',
  AtomExtracted: 'atoms',
  GraphEntriesLinked: 'graphLinks',
  MessageRecorded: 'messages',
};

/** Counts the stored events sealed under `keyId` (a scan of the log: erasure is rare, and exact counts matter for the audit). */
export function countSealedUnder(db: SqliteDatabase, keyId: number | undefined): ErasureCounts {
  const counts: ErasureCounts = { memories: 0, memoryUpdates: 0, atoms: 0, graphLinks: 0, messages: 0, events: 0 };
  if (keyId === undefined) return counts;
  const rows = db
    .prepare<[number], { type: string; n: number }>(
      `SELECT type, count(*) AS n FROM events
       WHERE json_type(data, '$."$sealed".k') = 'array'
         AND EXISTS (SELECT 1 FROM json_each(data, '$."$sealed".k') WHERE value = ?)
       GROUP BY type`,
    )
    .all(keyId);
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
