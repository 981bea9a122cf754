import { createHash } from 'node:crypto';
import type { VectorSource } from '../../src/projections/vectors/apply.js';

/** A deterministic stand-in for the embedding cache: a vector derived from the text's hash. */
export function testVectorSource(dimension = 8, missing: (text: string) => boolean = () => false): VectorSource & { asked: number } {
  const texts = new Map<string, string>();
  const source = {
    fingerprint: `test-${dimension}`,
    dimension,
    asked: 0,
    keyOf(text: string): string {
      const key = createHash('sha256').update(text).digest('hex');
      texts.set(key, text);
      return key;
    },
    lookup(key: string): Float32Array | undefined {
      source.asked += 1;
      const text = texts.get(key);
      if (text === undefined || missing(text)) return undefined;
      return vectorFor(key, dimension);
    },
  };
  return source;
}

export function vectorFor(seed: string, dimension: number): Float32Array {
  const bytes = createHash('sha512').update(seed).digest();
  const v = Float32Array.from({ length: dimension }, (_, i) => ((bytes[i % bytes.length] ?? 0) - 127.5) / 127.5);
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}
