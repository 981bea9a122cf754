import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/events/log/sqlite-database.js';
import {
  contentHash,
  createEmbeddingCache,
  createEmbeddingProvider,
  createHashEmbeddingProvider,
  dot,
  embedWithCache,
  embeddingConfigSchema,
  fingerprintKey,
  truncateForEmbedding,
  type EmbeddingProvider,
} from '../src/providers/embeddings/index.js';
import { fnv1a32 } from '../src/providers/embeddings/hash.js';
import { ValidationError } from '../src/events/errors.js';
import { providerFingerprintSchema } from '../src/events/system.js';

const norm = (v: Float32Array): number => Math.sqrt(dot(v, v));

/** Wraps a provider and records every text it is asked to embed. */
function counting(inner: EmbeddingProvider): EmbeddingProvider & { readonly asked: string[][] } {
  const asked: string[][] = [];
  return {
    fingerprint: inner.fingerprint,
    maxInputChars: inner.maxInputChars,
    asked,
    async embed(texts) {
      asked.push([...texts]);
      return inner.embed(texts);
    },
  };
}

describe('hash embedding provider', () => {
  const provider = createHashEmbeddingProvider();

  it('is deterministic, normalised and of the configured dimension', async () => {
    const texts = ['The cat sat on the mat', '我喜欢喝咖啡', 'x'];
    const [a, b] = [await provider.embed(texts), await createHashEmbeddingProvider().embed(texts)];
    expect(a.map((v) => v.length)).toEqual([256, 256, 256]);
    a.forEach((v, i) => {
      expect([...v]).toEqual([...(b[i] ?? [])]);
      expect(norm(v)).toBeCloseTo(1, 5);
    });
    const [small] = await createHashEmbeddingProvider({ dimension: 64 }).embed(['hello']);
    expect(small?.length).toBe(64);
    expect(provider.fingerprint.dimension).toBe(256);
    expect(providerFingerprintSchema.parse(provider.fingerprint)).toEqual(provider.fingerprint);
  });

  it('gives pinned values, so vectors are the same on every machine and run', async () => {
    expect([fnv1a32(''), fnv1a32('a'), fnv1a32('foobar')]).toEqual([0x811c9dc5, 0xe40c292c, 0xbf9cf968]);
    const [v] = await createHashEmbeddingProvider({ dimension: 8 }).embed(['记忆 memory']);
    // 15 features (2 words, 7 bigrams, 6 trigrams) in 8 signed buckets; the squares sum to 39.
    expect(Array.from(v ?? [], (x) => Math.round(x * Math.sqrt(39)))).toEqual([2, -1, 0, -2, 4, -2, 1, -3]);
  });

  it('hashes the UTF-8 bytes TextEncoder gives, for any string (lone surrogates too)', () => {
    const viaEncoder = (text: string, seed = 0x811c9dc5): number => {
      let hash = seed;
      for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
      return hash;
    };
    const anyText = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }));
    fc.assert(fc.property(anyText, fc.integer({ min: 0, max: 0xffffffff }), (text, seed) => {
      expect(fnv1a32(text)).toBe(viaEncoder(text));
      expect(fnv1a32(text, seed)).toBe(viaEncoder(text, seed));
    }), { numRuns: 2000 });
  });

  it('maps empty and punctuation-only text to a zero vector, never NaN', async () => {
    for (const v of await provider.embed(['', '   ', '!!!'])) {
      expect(v.every((x) => x === 0)).toBe(true);
    }
  });

  it('puts texts with shared words closer than unrelated ones, in Chinese and in English', async () => {
    const [coffee, coffee2, physics] = await provider.embed(['我每天早上喝咖啡', '咖啡是我早上最喜欢的饮料', '量子力学研究微观粒子']);
    const [cat, cat2, stock] = await provider.embed(['the black cat sleeps on the sofa', 'a black cat sleeping', 'interest rates and the stock market']);
    const [mixed, mixed2, other] = await provider.embed(['我喜欢 coffee', 'coffee 很好喝', 'quantum 物理']);
    const pairs = [
      [coffee, coffee2, physics],
      [cat, cat2, stock],
      [mixed, mixed2, other],
    ] as const;
    for (const [a, b, c] of pairs) {
      if (!a || !b || !c) throw new Error('missing vector');
      expect(dot(a, b)).toBeGreaterThan(dot(a, c));
    }
  });

  it('is case- and width-insensitive', async () => {
    const [a, b] = await provider.embed(['Ｃｏｆｆｅｅ Time', 'coffee time']);
    expect([...(a ?? [])]).toEqual([...(b ?? [])]);
  });
});

describe('fingerprints, hashes and truncation', () => {
  it('gives a changed model the same dimension a different key', () => {
    const fp = { provider: 'openai', model: 'text-embedding-3-small', dimension: 1536, settings: { b: 1, a: 'x' } };
    expect(fingerprintKey(fp)).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprintKey({ ...fp, settings: { a: 'x', b: 1 } })).toBe(fingerprintKey(fp));
    expect(fingerprintKey({ ...fp, model: 'text-embedding-ada-002' })).not.toBe(fingerprintKey(fp));
    expect(fingerprintKey({ ...fp, settings: { a: 'x', b: 2 } })).not.toBe(fingerprintKey(fp));
    const hash64 = createHashEmbeddingProvider({ dimension: 64 }).fingerprint;
    expect(fingerprintKey(hash64)).not.toBe(fingerprintKey(createHashEmbeddingProvider().fingerprint));
  });

  it('hashes content with sha256', () => {
    expect(contentHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('truncates to the limit without splitting a surrogate pair', () => {
    expect(truncateForEmbedding('hello', 10)).toBe('hello');
    expect(truncateForEmbedding('hello world', 5)).toBe('hello');
    expect(truncateForEmbedding('ab😀cd', 3)).toBe('ab');
    expect(truncateForEmbedding('ab😀cd', 4)).toBe('ab😀');
    expect(() => truncateForEmbedding('x', -1)).toThrow(RangeError);
  });
});

describe('embedding cache', () => {
  it('round-trips vectors exactly', () => {
    const cache = createEmbeddingCache(openDatabase(':memory:'), Buffer.alloc(32, 7));
    const vector = Float32Array.from([0.1, -0.2, 1 / 3, Number.MIN_VALUE, -0, 3.4e38]);
    cache.put('fp', 'h1', vector);
    expect(cache.get('fp', 'h1')).toEqual(vector);
    expect(Object.is(cache.get('fp', 'h1')?.[4], -0)).toBe(true);
    expect(cache.get('fp', 'h2')).toBeUndefined();
    expect(cache.get('other', 'h1')).toBeUndefined();
    cache.put('fp', 'h1', Float32Array.from([7]));
    expect(cache.get('fp', 'h1')).toEqual(Float32Array.from([7]));
  });

  it('looks many hashes up at once, past a page', () => {
    const cache = createEmbeddingCache(openDatabase(':memory:'), Buffer.alloc(32, 7));
    cache.putMany('fp', Array.from({ length: 1200 }, (_, i) => [`h${i}`, Float32Array.from([i])] as const));
    const found = cache.getMany('fp', [...Array.from({ length: 1200 }, (_, i) => `h${i}`), 'missing', 'h3']);
    expect(found.size).toBe(1200);
    expect(found.get('h1199')).toEqual(Float32Array.from([1199]));
  });

  it('asks the provider only for distinct misses, and a rebuild embeds nothing', async () => {
    const db = openDatabase(':memory:');
    const provider = counting(createHashEmbeddingProvider());
    const first = await embedWithCache(provider, createEmbeddingCache(db, Buffer.alloc(32, 7)), ['alpha', 'beta', 'alpha', 'gamma']);
    expect(first.embedded).toBe(3);
    expect(provider.asked).toEqual([['alpha', 'beta', 'gamma']]);
    expect(first.vectors.map((v) => [...v])).toEqual((await createHashEmbeddingProvider().embed(['alpha', 'beta', 'alpha', 'gamma'])).map((v) => [...v]));

    const second = await embedWithCache(provider, createEmbeddingCache(db, Buffer.alloc(32, 7)), ['gamma', 'delta', 'alpha']);
    expect(second.embedded).toBe(1);
    expect(provider.asked[1]).toEqual(['delta']);
    expect(second.vectors[0]).toEqual(first.vectors[3]);

    const rebuild = await embedWithCache(provider, createEmbeddingCache(db, Buffer.alloc(32, 7)), ['alpha', 'beta', 'gamma', 'delta']);
    expect(rebuild.embedded).toBe(0);
    expect(provider.asked).toHaveLength(2);

    const otherModel = counting(createHashEmbeddingProvider({ dimension: 32 }));
    expect((await embedWithCache(otherModel, createEmbeddingCache(db, Buffer.alloc(32, 7)), ['alpha'])).embedded).toBe(1);
  });

  it('truncates before hashing, so texts equal up to the limit share a vector', async () => {
    const provider = counting(createHashEmbeddingProvider({ maxInputChars: 5 }));
    const result = await embedWithCache(provider, createEmbeddingCache(openDatabase(':memory:'), Buffer.alloc(32, 7)), ['hello world', 'hello there']);
    expect(provider.asked).toEqual([['hello']]);
    expect(result.embedded).toBe(1);
    expect(result.vectors[0]).toEqual(result.vectors[1]);
  });

  it('sends misses in chunks and keeps the chunks stored before a failure', async () => {
    const db = openDatabase(':memory:');
    const inner = createHashEmbeddingProvider();
    let calls = 0;
    const flaky: EmbeddingProvider = {
      ...inner,
      async embed(texts) {
        calls += 1;
        if (calls === 2) throw new Error('provider down');
        return inner.embed(texts);
      },
    };
    const texts = ['a1', 'a2', 'a3', 'a4', 'a5'];
    await expect(embedWithCache(flaky, createEmbeddingCache(db, Buffer.alloc(32, 7)), texts, { chunkSize: 2 })).rejects.toThrow('provider down');
    const again = counting(inner);
    expect((await embedWithCache(again, createEmbeddingCache(db, Buffer.alloc(32, 7)), texts, { chunkSize: 2 })).embedded).toBe(3);
    expect(again.asked).toEqual([['a3', 'a4'], ['a5']]);
  });

  it('refuses a provider that returns the wrong number of vectors', async () => {
    const broken: EmbeddingProvider = { ...createHashEmbeddingProvider(), embed: async () => [] };
    await expect(embedWithCache(broken, createEmbeddingCache(openDatabase(':memory:'), Buffer.alloc(32, 7)), ['x'])).rejects.toThrow(/returned 0 vectors for 1 texts/);
  });
});

describe('embedding configuration', () => {
  it('defaults to the hash provider', () => {
    expect(embeddingConfigSchema().parse({})).toEqual({ provider: 'hash' });
    expect(createEmbeddingProvider({ provider: 'hash', dimension: 128 }).fingerprint.dimension).toBe(128);
    expect(createEmbeddingProvider({ provider: 'use-lite' }).fingerprint).toMatchObject({ provider: 'use-lite', dimension: 512 });
  });

  it('builds an openai provider with defaults filled in', () => {
    const provider = createEmbeddingProvider({ provider: 'openai', openai: { baseUrl: 'http://127.0.0.1:1', model: 'm', dimension: 8 } });
    expect(provider.fingerprint).toMatchObject({ provider: 'openai', model: 'm', dimension: 8, settings: { endpoint: 'http://127.0.0.1:1/v1/embeddings' } });
    expect(provider.maxInputChars).toBe(4000);
  });

  it.each([
    [{ provider: 'openai' }, /embedding\.openai/],
    [{ provider: 'openai', openai: { baseUrl: 'ftp://x', model: 'm', dimension: 8 } }, /embedding\.openai\.baseUrl/],
    [{ provider: 'openai', openai: { baseUrl: 'http://x', model: 'm', dimension: 0 } }, /embedding\.openai\.dimension/],
    [{ provider: 'use-lite', dimension: 256 }, /embedding\.dimension/],
    [{ provider: 'hash', dimnesion: 8 }, /embedding\.dimnesion/],
    [{ provider: 'bert' }, /embedding\.provider/],
  ])('refuses %j naming the field', (config, message) => {
    expect(() => createEmbeddingProvider(config as never)).toThrow(ValidationError);
    expect(() => createEmbeddingProvider(config as never)).toThrow(message);
  });
});
