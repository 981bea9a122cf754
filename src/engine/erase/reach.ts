import type { RecordedEvent } from '../../events/log/event-log.js';
import type { SqliteDatabase } from '../../events/log/sqlite-database.js';
import { namesSubject, type SubjectRef } from '../../events/subjects.js';
import { memorySubjects } from '../../events/subjects.js';
import { truncateForEmbedding, type EmbeddingCache, type EmbeddingProvider } from '../../providers/embeddings/index.js';
import { embeddedTexts } from '../embedding-cache.js';
import type { Indexes } from '../indexes.js';

/** What an erasure of a subject reaches, counted from the events its key seals (`lmem erase --preview`). */
export interface ErasureReach {
  readonly events: number;
  readonly messages: number;
  /** Memories sealed under the key: the subject's own and those derived from its messages. */
  readonly memories: number;
  /** Of those, the ones whose scope names someone else (a group summary with the subject's words in it). */
  readonly derivedMemories: number;
  readonly memoryUpdates: number;
  readonly atoms: number;
  readonly graphEntries: number;
  /** Embedding cache rows (keyed hash and vector) of the subject's texts that no other memory has. */
  readonly embeddings: number;
}

/** Counts the sealed events of a subject, by what they hold. */
export function reachOf(subject: SubjectRef, sealed: readonly RecordedEvent[], embeddings: number): ErasureReach {
  const counts = { events: sealed.length, messages: 0, memories: 0, derivedMemories: 0, memoryUpdates: 0, atoms: 0, graphEntries: 0, embeddings };
  for (const e of sealed) {
    if (e.type === 'MessageRecorded') counts.messages += 1;
    else if (e.type === 'MemoryUpdated') counts.memoryUpdates += 1;
    else if (e.type === 'AtomExtracted') counts.atoms += 1;
    else if (e.type === 'GraphEntriesLinked') counts.graphEntries += e.data.entries.length;
    else if (e.type === 'MemoryWritten') {
      counts.memories += 1;
      const { userId, sessionId, personaId } = e.data;
      if (!namesSubject(memorySubjects({ userId, sessionId, personaId }), subject)) counts.derivedMemories += 1;
    }
  }
  return counts;
}

/**
 * The cache keys of every text the sealed events carried, but for texts a memory outside them still
 * has (its own text or a graph entry's): that row is the other memory's embedding too. Reads the
 * live read models, so call it with them caught up (inside the erasure's transaction, exactly).
 */
export function erasedCacheKeys(
  deps: { readonly db: SqliteDatabase; readonly indexes: Indexes; readonly provider: EmbeddingProvider; readonly cache: EmbeddingCache },
  sealed: readonly RecordedEvent[],
): string[] {
  const max = deps.provider.maxInputChars;
  const texts = new Set(sealed.flatMap(embeddedTexts).map((text) => truncateForEmbedding(text, max)));
  const erased = new Set(sealed.flatMap((e) => ('memoryId' in e.data && typeof e.data.memoryId === 'string' ? [e.data.memoryId] : [])));
  for (const text of textsKeptBy(deps.db, deps.indexes, erased, [...texts], max)) texts.delete(truncateForEmbedding(text, max));
  // Keyed (an HMAC each) only now: the subject's texts, not every text of the store.
  return [...new Set([...texts].map((text) => deps.cache.keyOf(text)))];
}

/**
 * The texts of memories outside `erased` (their own or their graph entries') that may equal one of
 * `texts` once truncated: SQLite compares in the scan and returns only candidates (the same text, or
 * one long enough to be truncated, compared exactly by the caller), so the store's texts are not
 * copied out and keyed one by one.
 */
function textsKeptBy(db: SqliteDatabase, indexes: Indexes, erased: ReadonlySet<string>, texts: readonly string[], maxInputChars: number): string[] {
  const documents = indexes.runner.liveTable('documents', 'documents');
  const entries = indexes.runner.liveTable('graph', 'graph_entries');
  // length() counts characters, truncation UTF-16 units (at most two a character): half is safe.
  const candidate = 'text IN (SELECT value FROM json_each(@texts)) OR length(text) > @long';
  const rows = db
    .prepare<{ texts: string; long: number }, { memoryId: string; text: string }>(
      `SELECT memory_id AS memoryId, text FROM ${documents} WHERE json_extract(metadata, '$.status') NOT IN ('erased', 'forgotten') AND (${candidate})
       UNION ALL SELECT memory_id, text FROM ${entries} WHERE ${candidate}`,
    )
    .all({ texts: JSON.stringify(texts), long: Math.floor(maxInputChars / 2) });
  return rows.filter((r) => !erased.has(r.memoryId)).map((r) => r.text);
}
