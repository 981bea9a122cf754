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

const mix = (hash: number, byte: number): number => Math.imul(hash ^ byte, 0x01000193) >>> 0;

/**
 * FNV-1a, 32 bits, over the UTF-8 bytes: the same on every machine and every run. The bytes are
 * made from the UTF-16 units as TextEncoder makes them (a lone surrogate is U+FFFD), without an
 * array per text: an import hashes a few hundred features per memory.
 */
export function fnv1a32(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      hash = mix(hash, c);
      continue;
    }
    if (c < 0x800) {
      hash = mix(mix(hash, 0xc0 | (c >> 6)), 0x80 | (c & 0x3f));
      continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        const code = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i += 1;
        hash = mix(mix(mix(mix(hash, 0xf0 | (code >> 18)), 0x80 | ((code >> 12) & 0x3f)), 0x80 | ((code >> 6) & 0x3f)), 0x80 | (code & 0x3f));
        continue;
      }
      c = 0xfffd;
    }
    hash = mix(mix(mix(hash, 0xe0 | (c >> 12)), 0x80 | ((c >> 6) & 0x3f)), 0x80 | (c & 0x3f));
  }
  return hash;
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
