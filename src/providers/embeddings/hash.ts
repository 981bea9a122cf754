import { allOf, punctuation, without } from '../../projections/text/chars.js';
import { cutMixed } from '../../projections/text/jieba.js';
import { anyLanguage } from './coverage.js';
import { l2Normalize, truncateForEmbedding, type EmbeddingProvider } from './provider.js';

export interface HashProviderOptions {
  /** Length of every vector; default 256. */
  readonly dimension?: number;
  /** Default 8000. */
  readonly maxInputChars?: number;
}

export const hashProviderDefaults = { dimension: 256, maxInputChars: 8000 } as const;

// Bumped whenever the features or the hashing change, so old vectors get another fingerprint.
const featureVersion = 1;
const utf8 = new TextEncoder();

/** FNV-1a, 32 bits, over the UTF-8 bytes: the same on every machine and every run. */
export function fnv1a32(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (const byte of utf8.encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The features of one text: jieba words (`w:`) and character 2- and 3-grams (`2:`, `3:`). */
export function hashFeatures(text: string): string[] {
  const normalized = text.normalize('NFKC').toLowerCase();
  const features: string[] = [];
  // jieba's HMM mode keeps Latin words and numbers whole; ASCII text is cut without loading jieba.
  for (const token of cutMixed(normalized)) {
    if (!allOf(token, punctuation)) features.push(`w:${token}`);
  }
  const chars = Array.from(without(normalized, punctuation));
  for (const n of [2, 3]) {
    for (let i = 0; i + n <= chars.length; i += 1) features.push(`${n}:${chars.slice(i, i + n).join('')}`);
  }
  // A text shorter than a bigram still gets a feature of its own.
  if (chars.length === 1) features.push(`1:${chars[0]}`);
  return features;
}

/** Feature hashing into `dimension` buckets with a sign bit, then L2-normalised. */
export function hashEmbed(text: string, dimension: number): Float32Array {
  const vector = new Float32Array(dimension);
  for (const feature of hashFeatures(text)) {
    const bucket = fnv1a32(feature) % dimension;
    // The sign comes from an independent hash so that it does not depend on the bucket.
    const sign = (fnv1a32(feature, 0x050c5d1f) & 1) === 0 ? 1 : -1;
    vector[bucket] = (vector[bucket] ?? 0) + sign;
  }
  return l2Normalize(vector);
}

/** Deterministic, offline and multilingual; no model, so quality is lexical only. */
export function createHashEmbeddingProvider(options: HashProviderOptions = {}): EmbeddingProvider {
  const dimension = options.dimension ?? hashProviderDefaults.dimension;
  const maxInputChars = options.maxInputChars ?? hashProviderDefaults.maxInputChars;
  if (!Number.isInteger(dimension) || dimension < 1) throw new RangeError(`hash provider dimension must be a positive integer, got ${dimension}`);
  if (!Number.isInteger(maxInputChars) || maxInputChars < 1) throw new RangeError(`hash provider maxInputChars must be a positive integer, got ${maxInputChars}`);
  return {
    fingerprint: {
      provider: 'hash',
      model: `fnv1a32-jieba-char23-v${featureVersion}`,
      dimension,
      settings: { maxInputChars, features: 'jieba-hmm+char-2-3', normalize: 'nfkc-lower' },
    },
    maxInputChars,
    // Lexical: words and character n-grams of any script, so it covers every language alike.
    coverage: anyLanguage,
    async embed(texts) {
      return texts.map((text) => hashEmbed(truncateForEmbedding(text, maxInputChars), dimension));
    },
  };
}
