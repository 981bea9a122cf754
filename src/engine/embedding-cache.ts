import { randomBytes } from 'node:crypto';
import type { RecordedEvent } from '../events/log/event-log.js';
import type { EventLog } from '../events/log/event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { contentHash, createEmbeddingCache, embeddingCacheRows, keyedContentHash, truncateForEmbedding, type EmbeddingCache, type EmbeddingProvider } from '../providers/embeddings/index.js';
import { existingStoreSecret, storeSecret } from './store-secrets.js';

const secretName = 'embedding-cache-hmac';

/** Every text an embedding may have been cached for: memory texts, their updates, graph entries. */
export function embeddedTexts(e: RecordedEvent): string[] {
  if (e.metadata.erased === true) return [];
  if (e.type === 'MemoryWritten') return [e.data.text];
  if (e.type === 'MemoryUpdated') return e.data.changes.text === undefined ? [] : [e.data.changes.text];
  if (e.type === 'GraphEntriesLinked') return e.data.entries.map((entry) => entry.text);
  return [];
}

/** The cache's HMAC secret of a store, created when missing (a store built outside the engine, the bench). */
export const embeddingCacheSecret = (db: SqliteDatabase): Buffer => storeSecret(db, secretName, () => randomBytes(32));

/**
 * The engine's embedding cache, keyed by an HMAC under the store secret (ADR 19). A store whose
 * cache predates the secret holds rows keyed by plain sha256: they are rekeyed for the texts the
 * log holds (so nothing is embedded again) and every other row is dropped, in the transaction that
 * creates the secret. `rekeyed` says this happened: pending vector items still name old keys.
 */
export async function openEmbeddingCache(db: SqliteDatabase, log: EventLog, provider: EmbeddingProvider): Promise<{ cache: EmbeddingCache; rekeyed: boolean }> {
  const existing = existingStoreSecret(db, secretName);
  if (existing) return { cache: createEmbeddingCache(db, existing), rekeyed: false };
  const rows = embeddingCacheRows(db);
  const texts = rows === 0 ? new Set<string>() : await logTexts(log, provider);
  let made = false;
  const secret = db.transaction((): Buffer => {
    const value = storeSecret(db, secretName, () => ((made = true), randomBytes(32)));
    if (made) rekey(db, keyedContentHash(value), texts);
    return value;
  }).immediate();
  // The moved rows' tags named their old keys.
  return { cache: createEmbeddingCache(db, secret, { retag: made && rows > 0 }), rekeyed: made && rows > 0 };
}

async function logTexts(log: EventLog, provider: EmbeddingProvider): Promise<Set<string>> {
  const texts = new Set<string>();
  for (let from = 1n; ; ) {
    const page = await log.readAll({ from, limit: 1000 });
    for (const e of page) for (const text of embeddedTexts(e)) texts.add(truncateForEmbedding(text, provider.maxInputChars));
    const last = page.at(-1);
    if (!last || page.length < 1000) return texts;
    from = last.globalPosition + 1n;
  }
}

/** Moves the rows of known texts to their keyed hash and deletes the rest (secure_delete zeroes them). */
function rekey(db: SqliteDatabase, keyOf: (text: string) => string, texts: ReadonlySet<string>): void {
  const move = db.prepare(
    'UPDATE embedding_cache SET content_hash = m.value ->> 1 FROM json_each(?) AS m WHERE embedding_cache.content_hash = m.value ->> 0',
  );
  const pairs = [...texts].map((t) => [contentHash(t), keyOf(t)] as const);
  // An HMAC never equals a sha256 of the rows (2^-256), so a moved row is not matched again.
  for (let i = 0; i < pairs.length; i += 500) move.run(JSON.stringify(pairs.slice(i, i + 500)));
  db.prepare('DELETE FROM embedding_cache WHERE content_hash NOT IN (SELECT value FROM json_each(?))').run(JSON.stringify(pairs.map(([, key]) => key)));
}
