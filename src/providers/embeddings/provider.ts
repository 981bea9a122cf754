import { createHash, createHmac, createSecretKey } from 'node:crypto';
import type { z } from 'zod';
import type { providerFingerprintSchema } from '../../events/system.js';
import { ProviderError } from '../errors.js';
import type { EmbeddingCoverage } from './coverage.js';

/** Who made a vector: `{ provider, model, dimension, settings }`, as ProviderFingerprintChanged records it. */
export type ProviderFingerprint = z.output<typeof providerFingerprintSchema>;

/** Turns texts into vectors; every implementation sits behind this one interface. */
export interface EmbeddingProvider {
  readonly fingerprint: ProviderFingerprint;
  /** Longer texts are cut to this many UTF-16 code units before embedding (see truncateForEmbedding). */
  readonly maxInputChars: number;
  /** What it embeds meaningfully; absent means every text (see coverage.ts). */
  readonly coverage?: EmbeddingCoverage;
  /**
   * One vector per text, in input order, each L2-normalised (inner product = cosine; an all-zero
   * vector stays all zero). Either every vector is returned or the promise rejects.
   */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** An embedding provider that failed or answered something unusable; the message names what was wrong. */
export class EmbeddingProviderError extends ProviderError {
  override readonly name = 'EmbeddingProviderError';
  constructor(provider: string, detail: string, options?: { cause?: unknown }) {
    super(provider, 'embeddings', detail, options);
  }
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** JSON with object keys sorted at every depth, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** sha256 hex of the canonical fingerprint: any change (model, settings, dimension) is another key. */
export function fingerprintKey(fp: ProviderFingerprint): string {
  return sha256(canonicalJson(fp));
}

/**
 * sha256 hex of the text's UTF-8 bytes: how cache rows were keyed before the keyed hash (ADR 19).
 * Only the migration of such rows uses it now: anyone could confirm a guessed text against it.
 */
export function contentHash(text: string): string {
  return sha256(text);
}

/** HMAC-SHA256 hex of the text under a store secret: the cache key of an embedding (ADR 19). */
export function keyedContentHash(secret: Buffer): (text: string) => string {
  const key = createSecretKey(secret);
  return (text) => createHmac('sha256', key).update(text, 'utf8').digest('hex');
}

/** The first `maxInputChars` UTF-16 code units, never splitting a surrogate pair. */
export function truncateForEmbedding(text: string, maxInputChars: number): string {
  if (!Number.isInteger(maxInputChars) || maxInputChars < 0) throw new RangeError(`maxInputChars must be a non-negative integer, got ${maxInputChars}`);
  if (text.length <= maxInputChars) return text;
  let end = maxInputChars;
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/** Scales to unit length in place and returns it; a zero (or non-finite) norm leaves zeros, never NaN. */
export function l2Normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i += 1) sum += (vector[i] ?? 0) * (vector[i] ?? 0);
  const norm = Math.sqrt(sum);
  if (norm === 0 || !Number.isFinite(norm)) {
    vector.fill(0);
    return vector;
  }
  for (let i = 0; i < vector.length; i += 1) vector[i] = (vector[i] ?? 0) / norm;
  return vector;
}

/** Normalised copy of plain numbers as a Float32Array. */
export function toUnitVector(values: ArrayLike<number>): Float32Array {
  return l2Normalize(Float32Array.from(values));
}

/** Inner product; equals cosine similarity for normalised vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`dimension mismatch: ${a.length} vs ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}
