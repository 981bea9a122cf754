import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contentHash, createEmbeddingCache, keyedContentHash } from '../src/providers/embeddings/index.js';
import { openDatabase } from '../src/events/log/sqlite-database.js';
import { embeddedTexts } from '../src/engine/embedding-cache.js';
import { controllableProvider, openTestEngine, tempDir } from './support/engine.js';

const texts = ['Ann drinks green tea every morning', 'Ben repairs bicycles in Osaka'];
let temp: ReturnType<typeof tempDir> | undefined;
afterEach(() => temp?.remove());

/** The cache rows of a closed store, read straight from its file. */
function rows(dir: string): { content_hash: string }[] {
  const db = new Database(join(dir, 'livingmemory.db'), { readonly: true });
  try {
    return db.prepare('SELECT content_hash FROM embedding_cache').all() as { content_hash: string }[];
  } finally {
    db.close();
  }
}

describe('the embedding cache is keyed by an HMAC under a store secret', () => {
  it('keys no row by the plain sha256 of a text, and another secret gives other keys', async () => {
    temp = tempDir();
    const engine = await openTestEngine(temp.dir);
    for (const text of texts) await engine.writeMemory({ text });
    await engine.close();
    const keys = new Set(rows(temp.dir).map((r) => r.content_hash));
    expect(keys.size).toBeGreaterThanOrEqual(texts.length);
    for (const text of texts) expect(keys.has(contentHash(text))).toBe(false);
    const a = createEmbeddingCache(openDatabase(':memory:'), Buffer.alloc(32, 1));
    expect(a.keyOf('tea')).toBe(keyedContentHash(Buffer.alloc(32, 1))('tea'));
    expect(a.keyOf('tea')).not.toBe(keyedContentHash(Buffer.alloc(32, 2))('tea'));
    expect(a.keyOf('tea')).not.toBe(contentHash('tea'));
  });

  it('rekeys an older store unsalted rows for the texts of its log, drops the others, and embeds nothing again', async () => {
    temp = tempDir();
    const engine = await openTestEngine(temp.dir);
    for (const text of texts) await engine.writeMemory({ text });
    const cached = [...new Set((await engine.log.readAll()).flatMap(embeddedTexts))];
    await engine.close();
    // Turn the store into one written before the keyed cache: sha256 keys, no secret, plus a row of a text no event holds.
    const db = new Database(join(temp.dir, 'livingmemory.db'));
    const secret = db.prepare("SELECT value FROM store_secrets WHERE name = 'embedding-cache-hmac'").pluck().get() as Buffer;
    const keyed = keyedContentHash(secret);
    const fp = db.prepare('SELECT fingerprint FROM embedding_cache LIMIT 1').pluck().get() as string;
    expect(new Set(db.prepare('SELECT content_hash FROM embedding_cache').pluck().all())).toEqual(new Set(cached.map(keyed)));
    db.prepare("DELETE FROM store_secrets WHERE name = 'embedding-cache-hmac'").run();
    for (const text of cached) db.prepare('UPDATE embedding_cache SET content_hash = ? WHERE content_hash = ?').run(contentHash(text), keyed(text));
    db.prepare('INSERT INTO embedding_cache (fingerprint, content_hash, vector) VALUES (?, ?, ?)').run(fp, contentHash('zqorphan text'), Buffer.alloc(128));
    db.close();

    const { provider, control } = controllableProvider();
    const reopened = await openTestEngine(temp.dir, { embeddingProvider: provider });
    const found = await reopened.recall({ query: 'green tea', scope: { mode: 'global' } });
    expect(found.memories[0]?.text).toBe(texts[0]);
    await reopened.indexes.vectors.rebuild();
    await reopened.indexes.graphVectors.rebuild();
    // The query only: every vector of the rebuilds came from the rekeyed cache.
    expect(control.embedded).toBe(1);
    expect(reopened.indexes.vectors.pending().size + reopened.indexes.graphVectors.pending().size).toBe(0);
    await reopened.close();
    const newSecret = new Database(join(temp.dir, 'livingmemory.db'), { readonly: true });
    const rekeyed = keyedContentHash(newSecret.prepare("SELECT value FROM store_secrets WHERE name = 'embedding-cache-hmac'").pluck().get() as Buffer);
    newSecret.close();
    // Exactly the log's texts, under the new secret's keys; the orphan and every plain sha256 are gone.
    expect(new Set(rows(temp.dir).map((r) => r.content_hash))).toEqual(new Set(cached.map(rekeyed)));
  });

  it('reads a row changed on disk, cut short or moved to another key as a miss, and tags the rows of an older table once', () => {
    const db = openDatabase(':memory:');
    const secret = Buffer.alloc(32, 7);
    const vector = Float32Array.from({ length: 8 }, (_, i) => i / 8);
    for (const key of ['a', 'b', 'c', 'd']) createEmbeddingCache(db, secret).put('fp', key, vector);
    // Another process's cache (this one's keeps what it stored last in memory: the next test).
    const cache = createEmbeddingCache(db, secret);
    const set = db.prepare('UPDATE embedding_cache SET vector = ? WHERE content_hash = ?');
    const blob = (key: string) => db.prepare('SELECT vector FROM embedding_cache WHERE content_hash = ?').pluck().get(key) as Buffer;
    const changed = Buffer.from(blob('a'));
    changed.writeFloatLE(0.5, 0);
    set.run(changed, 'a');
    set.run(blob('b').subarray(0, 3), 'b');
    // Another row's vector and tag under this key.
    db.prepare("UPDATE embedding_cache SET vector = (SELECT vector FROM embedding_cache WHERE content_hash = 'd'), tag = (SELECT tag FROM embedding_cache WHERE content_hash = 'a') WHERE content_hash = 'c'").run();
    expect(cache.get('fp', 'a')).toBeUndefined();
    expect(cache.get('fp', 'b')).toBeUndefined();
    expect(cache.get('fp', 'c')).toBeUndefined();
    expect(cache.get('fp', 'd')).toEqual(vector);
    expect([...cache.getMany('fp', ['a', 'b', 'c', 'd']).keys()]).toEqual(['d']);
    // The next put of a text replaces its bad row.
    cache.put('fp', 'a', vector);
    expect(cache.get('fp', 'a')).toEqual(vector);

    const older = openDatabase(':memory:');
    older.exec('CREATE TABLE embedding_cache (fingerprint TEXT NOT NULL, content_hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (fingerprint, content_hash)) WITHOUT ROWID');
    older.prepare("INSERT INTO embedding_cache VALUES ('fp', 'a', ?)").run(Buffer.from(vector.buffer));
    expect(createEmbeddingCache(older, secret).get('fp', 'a')).toEqual(vector);
    // Once tagged, a row whose tag is taken away is no longer trusted.
    older.prepare('UPDATE embedding_cache SET tag = NULL').run();
    expect(createEmbeddingCache(older, secret).get('fp', 'a')).toBeUndefined();
  });

  it('serves the vectors it stored last from memory, at most 4,096, and forgets them all when rows are forgotten', () => {
    const db = openDatabase(':memory:');
    const cache = createEmbeddingCache(db, Buffer.alloc(32, 7));
    const vector = Float32Array.from({ length: 8 }, (_, i) => i / 8);
    const spoil = (key: string) => db.prepare("UPDATE embedding_cache SET vector = zeroblob(32) WHERE content_hash = ?").run(key);
    cache.put('fp', 'a', vector);
    cache.putMany('fp', [['b', vector], ['c', vector]]);
    spoil('a');
    spoil('b');
    // What this process embedded, not the row changed under it.
    expect(cache.get('fp', 'a')).toEqual(vector);
    expect([...cache.getMany('fp', ['a', 'b', 'c']).keys()].sort()).toEqual(['a', 'b', 'c']);
    expect(cache.forget(['c'])).toBe(1);
    // Forgetting (an erasure) drops every vector held in memory: the spoiled rows now read as misses.
    expect([...cache.getMany('fp', ['a', 'b', 'c']).keys()]).toEqual([]);
    cache.put('fp', 'a', vector);
    spoil('a');
    cache.putMany('fp', Array.from({ length: 4096 }, (_, i) => [`k${i}`, vector] as const));
    // Pushed out by 4,096 later ones: read from its row again.
    expect(cache.get('fp', 'a')).toBeUndefined();
    expect(cache.get('fp', 'k0')).toEqual(vector);
  });
});
