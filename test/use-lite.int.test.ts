import { describe, expect, it } from 'vitest';
import { createEmbeddingCache, createUseLiteEmbeddingProvider, dot, embedWithCache } from '../src/providers/embeddings/index.js';
import { openDatabase } from '../src/events/log/sqlite-database.js';

describe('use-lite embedding provider (real model, offline)', () => {
  const provider = createUseLiteEmbeddingProvider();

  it('embeds normalised 512-dimensional vectors, similar sentences closer than dissimilar ones', async () => {
    const [cat, kitten, market, empty] = await provider.embed([
      'The cat is sleeping on the sofa.',
      'A kitten naps on the couch.',
      'Interest rates rose sharply in the stock market.',
      '',
    ]);
    if (!cat || !kitten || !market || !empty) throw new Error('missing vector');
    for (const v of [cat, kitten, market, empty]) {
      expect(v.length).toBe(512);
      expect(Math.sqrt(dot(v, v))).toBeCloseTo(1, 4);
    }
    expect(dot(cat, kitten)).toBeGreaterThan(dot(cat, market) + 0.1);
    expect(provider.fingerprint).toMatchObject({ provider: 'use-lite', dimension: 512, settings: { maxInputChars: 2000 } });
  });

  it('batches, keeps the order, and is cached by embedWithCache', async () => {
    const small = createUseLiteEmbeddingProvider({ batchSize: 2 });
    const texts = ['cats purr', 'dogs bark', 'stocks fell', 'rain is wet', 'tea is hot'];
    const cache = createEmbeddingCache(openDatabase(':memory:'), Buffer.alloc(32, 7));
    const first = await embedWithCache(small, cache, texts);
    expect(first.embedded).toBe(5);
    const alone = await small.embed(['tea is hot', 'cats purr']);
    expect(dot(alone[0] ?? new Float32Array(512), first.vectors[4] ?? new Float32Array(512))).toBeCloseTo(1, 4);
    expect(dot(alone[1] ?? new Float32Array(512), first.vectors[0] ?? new Float32Array(512))).toBeCloseTo(1, 4);
    expect((await embedWithCache(small, cache, texts)).embedded).toBe(0);
  });
});
