import { createHmac, createSecretKey } from 'node:crypto';
import type { SqliteDatabase } from '../../events/log/sqlite-database.js';
import { withoutFsync } from '../../events/log/durability.js';
import { EmbeddingProviderError, fingerprintKey, keyedContentHash, truncateForEmbedding, type EmbeddingProvider } from './provider.js';

/**
 * Vectors by (fingerprintKey, keyed hash of the truncated text); outside the log, so rebuilds keep
 * it. The key is an HMAC under a store secret, so a row confirms no guessed text to anyone without
 * the store, and an erasure deletes the rows of the erased texts (ADR 19).
 */
export interface EmbeddingCache {
  /** The cache key of a text (already truncated for the provider). */
  keyOf(text: string): string;
  get(fpKey: string, hash: string): Float32Array | undefined;
  /** The hits among `hashes`, keyed by hash. */
  getMany(fpKey: string, hashes: readonly string[]): Map<string, Float32Array>;
  put(fpKey: string, hash: string, vector: Float32Array): void;
  /** Many puts in one transaction. */
  putMany(fpKey: string, entries: Iterable<readonly [hash: string, vector: Float32Array]>): void;
  /** Deletes these hashes under every fingerprint (erasure); returns how many rows went. */
  forget(hashes: readonly string[]): number;
  /** How many rows `forget(hashes)` would delete. */
  count(hashes: readonly string[]): number;
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** float32 little-endian bytes; decoding gives back the same bits. */
export function vectorToBuffer(vector: Float32Array): Buffer {
  if (littleEndian) return Buffer.from(vector.buffer.slice(vector.byteOffset, vector.byteOffset + vector.byteLength));
  const buffer = Buffer.alloc(vector.length * 4);
  vector.forEach((v, i) => buffer.writeFloatLE(v, i * 4));
  return buffer;
}

export function bufferToVector(buffer: Buffer): Float32Array {
  if (buffer.byteLength % 4 !== 0) throw new RangeError(`an embedding blob of ${buffer.byteLength} bytes is not float32`);
  const vector = new Float32Array(buffer.byteLength / 4);
  // Copied through bytes: a Buffer from SQLite need not be 4-byte aligned.
  if (littleEndian) new Uint8Array(vector.buffer).set(buffer);
  else for (let i = 0; i < vector.length; i += 1) vector[i] = buffer.readFloatLE(i * 4);
  return vector;
}

function ensureTable(db: SqliteDatabase): void {
  db.exec(`CREATE TABLE IF NOT EXISTS embedding_cache (
    fingerprint TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    vector BLOB NOT NULL,
    tag BLOB,
    PRIMARY KEY (fingerprint, content_hash)
  ) WITHOUT ROWID`);
}

type Tagger = (fpKey: string, hash: string, vector: Buffer) => Buffer;

/**
 * Each row carries a tag (HMAC under the store secret over its fingerprint, key and vector bytes):
 * a row changed on disk, cut short or moved to another key fails it and reads as a miss, so a
 * replay leaves its item pending and `verify` finds it, instead of trusting a wrong vector.
 */
function cacheTagger(secret: Buffer): Tagger {
  const key = createSecretKey(secret);
  return (fpKey, hash, vector) => createHmac('sha256', key).update(`tag\0${fpKey}\0${hash}\0`).update(vector).digest().subarray(0, 16);
}

/**
 * A table from before tags gets its column, and its rows (trusted as they are, once) their tags;
 * with `all`, every row is tagged again (its keys were just rewritten under a new secret).
 */
function addTags(db: SqliteDatabase, tagOf: Tagger, all: boolean): void {
  const hasTag = () => (db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('embedding_cache') as string[]).includes('tag');
  if (hasTag() && !all) return;
  db.transaction(() => {
    if (!hasTag()) db.exec('ALTER TABLE embedding_cache ADD COLUMN tag BLOB');
    else if (!all) return;
    const rows = db.prepare('SELECT fingerprint, content_hash, vector FROM embedding_cache').all() as { fingerprint: string; content_hash: string; vector: Buffer }[];
    const update = db.prepare('UPDATE embedding_cache SET tag = ? WHERE fingerprint = ? AND content_hash = ?');
    for (const r of rows) update.run(tagOf(r.fingerprint, r.content_hash, r.vector), r.fingerprint, r.content_hash);
  }).immediate();
}

/** How many vectors the cache holds (creating the table when missing). */
export function embeddingCacheRows(db: SqliteDatabase): number {
  ensureTable(db);
  return db.prepare('SELECT count(*) FROM embedding_cache').pluck().get() as number;
}

/** How many of the vectors it stored last a cache keeps in memory (a batch of 256 memories and their graph entries). */
const recentLimit = 4096;

/** Opens (creating when missing) the `embedding_cache` table in the engine's database, keyed under `secret`; `retag` after a rekey. */
export function createEmbeddingCache(db: SqliteDatabase, secret: Buffer, options: { retag?: boolean } = {}): EmbeddingCache {
  const keyOf = keyedContentHash(secret);
  const tagOf = cacheTagger(secret);
  ensureTable(db);
  addTags(db, tagOf, options.retag === true);
  const getOne = db.prepare<[string, string], { vector: Buffer; tag: Buffer | null }>('SELECT vector, tag FROM embedding_cache WHERE fingerprint = ? AND content_hash = ?');
  const getIn = db.prepare<[string, string], { content_hash: string; vector: Buffer; tag: Buffer | null }>(
    'SELECT content_hash, vector, tag FROM embedding_cache WHERE fingerprint = ? AND content_hash IN (SELECT value FROM json_each(?))',
  );
  const upsert = db.prepare<[string, string, Buffer, Buffer]>(
    'INSERT INTO embedding_cache (fingerprint, content_hash, vector, tag) VALUES (?, ?, ?, ?) ON CONFLICT (fingerprint, content_hash) DO UPDATE SET vector = excluded.vector, tag = excluded.tag',
  );
  // The vectors this process stored last: the vector indexes look up what a write embedded just
  // before (a read of its rows and a tag check each, about 7% of an import). Forgetting clears it.
  const recent = new Map<string, Float32Array>();
  const recentKey = (fpKey: string, hash: string) => `${fpKey}\0${hash}`;
  const store = (fpKey: string, hash: string, vector: Float32Array) => {
    const bytes = vectorToBuffer(vector);
    upsert.run(fpKey, hash, bytes, tagOf(fpKey, hash, bytes));
    if (recent.size >= recentLimit) recent.delete(recent.keys().next().value as string);
    recent.set(recentKey(fpKey, hash), bufferToVector(bytes));
  };
  // A row that fails its tag is a miss: the next embedding of its text replaces it.
  const sound = (fpKey: string, hash: string, row: { vector: Buffer; tag: Buffer | null }): Float32Array | undefined =>
    row.tag !== null && row.vector.byteLength % 4 === 0 && tagOf(fpKey, hash, row.vector).equals(row.tag) ? bufferToVector(row.vector) : undefined;
  const remove = db.prepare<[string]>('DELETE FROM embedding_cache WHERE content_hash IN (SELECT value FROM json_each(?))');
  const countIn = db.prepare<[string], number>('SELECT count(*) FROM embedding_cache WHERE content_hash IN (SELECT value FROM json_each(?))').pluck();
  const putAll = db.transaction((fpKey: string, entries: Iterable<readonly [string, Float32Array]>) => {
    for (const [hash, vector] of entries) store(fpKey, hash, vector);
  });
  const pageSize = 500;

  return {
    keyOf,
    get(fpKey, hash) {
      const known = recent.get(recentKey(fpKey, hash));
      if (known) return known;
      const row = getOne.get(fpKey, hash);
      return row ? sound(fpKey, hash, row) : undefined;
    },
    getMany(fpKey, hashes) {
      const found = new Map<string, Float32Array>();
      const unique: string[] = [];
      for (const hash of new Set(hashes)) {
        const known = recent.get(recentKey(fpKey, hash));
        if (known) found.set(hash, known);
        else unique.push(hash);
      }
      for (let start = 0; start < unique.length; start += pageSize) {
        for (const row of getIn.all(fpKey, JSON.stringify(unique.slice(start, start + pageSize)))) {
          const vector = sound(fpKey, row.content_hash, row);
          if (vector) found.set(row.content_hash, vector);
        }
      }
      return found;
    },
    // A cache row needs no fsync of its own: a lost one is embedded again, and the append that
    // follows it (synced) syncs the WAL frames before it too.
    put(fpKey, hash, vector) {
      withoutFsync(db, () => store(fpKey, hash, vector));
    },
    putMany(fpKey, entries) {
      withoutFsync(db, () => putAll(fpKey, entries));
    },
    forget(hashes) {
      recent.clear();
      return hashes.length === 0 ? 0 : remove.run(JSON.stringify(hashes)).changes;
    },
    count(hashes) {
      return hashes.length === 0 ? 0 : (countIn.get(JSON.stringify(hashes)) ?? 0);
    },
  };
}

export interface EmbedWithCacheOptions {
  /** Misses go to the provider this many at a time, each chunk stored before the next, so a failure keeps the earlier ones. Default 256. */
  readonly chunkSize?: number;
}

export interface EmbedWithCacheResult {
  /** One per input text, in input order. */
  readonly vectors: Float32Array[];
  /** How many (distinct) texts the provider was asked to embed. */
  readonly embedded: number;
}

/**
 * Truncates each text to the provider's limit, looks its hash up under the provider's fingerprint,
 * asks the provider only for the distinct misses and stores them. A cached vector of the wrong
 * length counts as a miss and is replaced.
 */
export async function embedWithCache(
  provider: EmbeddingProvider,
  cache: EmbeddingCache,
  texts: readonly string[],
  options: EmbedWithCacheOptions = {},
): Promise<EmbedWithCacheResult> {
  const chunkSize = options.chunkSize ?? 256;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
  const fpKey = fingerprintKey(provider.fingerprint);
  const { dimension } = provider.fingerprint;
  const truncated = texts.map((text) => truncateForEmbedding(text, provider.maxInputChars));
  const hashes = truncated.map(cache.keyOf);
  const found = new Map([...cache.getMany(fpKey, hashes)].filter(([, v]) => dimension === null || v.length === dimension));
  const misses = new Map<string, string>();
  hashes.forEach((hash, i) => {
    if (!found.has(hash) && !misses.has(hash)) misses.set(hash, truncated[i] ?? '');
  });
  const pending = [...misses];
  for (let start = 0; start < pending.length; start += chunkSize) {
    const chunk = pending.slice(start, start + chunkSize);
    const vectors = await provider.embed(chunk.map(([, text]) => text));
    if (vectors.length !== chunk.length) {
      throw new EmbeddingProviderError(provider.fingerprint.provider, `returned ${vectors.length} vectors for ${chunk.length} texts`);
    }
    const entries = chunk.map(([hash], i) => [hash, vectors[i] as Float32Array] as const);
    for (const [hash, vector] of entries) {
      if (dimension !== null && vector.length !== dimension) {
        throw new EmbeddingProviderError(provider.fingerprint.provider, `returned a vector of dimension ${vector.length}, expected ${dimension}`);
      }
      found.set(hash, vector);
    }
    cache.putMany(fpKey, entries);
  }
  return { vectors: hashes.map((hash) => found.get(hash) as Float32Array), embedded: misses.size };
}
