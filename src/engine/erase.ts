import { z } from 'zod';
import { stampEvents } from '../commands/decider.js';
import { erasableSubjectKindSchema, type ErasureCounts } from '../events/erasure.js';
import { parseOrThrow } from '../events/errors.js';
import type { RecordedEvent } from '../events/log/event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import type { SqliteEventLog } from '../events/log/sqlite-event-log.js';
import { idSchema } from '../events/metadata.js';
import { streams } from '../events/streams.js';
import type { Environment } from './clock.js';
import { contentHash, truncateForEmbedding, type EmbeddingCache, type EmbeddingProvider } from '../providers/embeddings/index.js';
import { engineProjections, type Indexes } from './indexes.js';
import { commandMetadata } from './system-events.js';
import type { CallContext } from './write-path.js';

export const eraseInputSchema = z
  .object({ kind: erasableSubjectKindSchema, id: idSchema, reason: z.string().min(1).max(500) })
  .strict();

export interface ErasureReceipt {
  readonly erasureId: string;
  readonly subject: { readonly kind: string; readonly id: string };
  readonly position: bigint;
  readonly keyIds: readonly number[];
  readonly counts: ErasureCounts;
  /** Embedding cache rows (hash and vector of an erased text) deleted. */
  readonly embeddingsForgotten: number;
  /** False when another connection kept the WAL from being emptied; its old pages go at the next checkpoint. */
  readonly walTruncated: boolean;
}

interface ErasureDeps {
  readonly db: SqliteDatabase;
  readonly log: SqliteEventLog;
  readonly env: Environment;
  readonly indexes: Indexes;
  readonly provider: EmbeddingProvider;
  readonly cache: EmbeddingCache;
  readonly defaultActor: string;
  /** Drops what the engine holds in memory (the recall cache). */
  readonly invalidate: () => void;
  /** Runs once the input is valid, before the key is destroyed (the managed backup, ADR 29). */
  readonly before?: () => Promise<void>;
  /** The last step: the same subject and cache rows shredded in the managed backups (ADR 29). */
  readonly after?: (subject: { kind: 'user' | 'session' | 'persona'; id: string }, cacheKeys: readonly string[]) => Promise<void>;
}

/** The texts an embedding may have been cached for: every text the subject's events carried. */
function textsOf(events: readonly RecordedEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.type === 'MemoryWritten') return [e.data.text];
    if (e.type === 'MemoryUpdated' && e.data.changes.text !== undefined) return [e.data.changes.text];
    return [];
  });
}

/**
 * Crypto-shredding of one subject (ADR 19): destroys its key in the transaction that records the
 * SubjectErased event, rebuilds every read model from the log (where the content now reads as
 * erased), drops its embedding-cache rows, then empties the WAL and vacuums so no page with its
 * plaintext stays in the file.
 */
export function createErasure(deps: ErasureDeps) {
  const { db, log, indexes, provider } = deps;
  const hashOf = (text: string): string => contentHash(truncateForEmbedding(text, provider.maxInputChars));

  return async function eraseSubject(input: unknown, ctx: CallContext = {}): Promise<ErasureReceipt> {
    const { kind, id, reason } = parseOrThrow(eraseInputSchema, input);
    await deps.before?.();
    await indexes.catchUp();
    const erasedHashes = new Set(textsOf(await log.sealedEvents({ kind, id })).map(hashOf));
    const meta = commandMetadata(deps.env, ctx.actor ?? deps.defaultActor, ctx);
    const erasureId = meta.commandId;
    const result = await log.eraseSubject({ kind, id }, (erasure) => ({
      streamId: streams.erasures,
      event: stampEvents(
        [{
          type: 'SubjectErased' as const,
          schemaVersion: 1 as const,
          data: { erasureId, subject: { kind, id }, reason, keyIds: erasure.keyId === undefined ? [] : [erasure.keyId], counts: erasure.counts },
        }],
        meta,
      )[0] as RecordedEvent,
    }));
    deps.invalidate();
    // A rebuild is a replay: the live read models become exactly what the log now says, erased items as erased.
    await indexes.runner.rebuildAll(engineProjections.map((p) => p.name), `subject ${kind} erased`);
    await indexes.vectors.rebuild();
    await indexes.graphVectors.rebuild();
    await indexes.catchUp();
    deps.invalidate();
    // A text another live memory still has keeps its cached vector.
    for (const text of liveTexts(db, indexes)) erasedHashes.delete(hashOf(text));
    const embeddingsForgotten = deps.cache.forget([...erasedHashes]);
    const walTruncated = scrubFile(db);
    await deps.after?.({ kind, id }, [...erasedHashes]);
    return {
      erasureId, subject: { kind, id }, position: result.lastPosition, keyIds: result.keyId === undefined ? [] : [result.keyId],
      counts: result.counts, embeddingsForgotten, walTruncated,
    };
  };
}

function liveTexts(db: SqliteDatabase, indexes: Indexes): string[] {
  const table = indexes.runner.liveTable('documents', 'documents');
  return db.prepare(`SELECT text FROM ${table} WHERE json_extract(metadata, '$.status') <> 'erased'`).pluck().all() as string[];
}

/** Moves every page into the file, empties the WAL, and rewrites the file without free pages. */
function scrubFile(db: SqliteDatabase): boolean {
  const first = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
  db.exec('VACUUM');
  const second = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
  return first[0]?.busy === 0 && second[0]?.busy === 0;
}
