import type { Pooling } from './model-dir.js';

/**
 * One vector per sequence from the token vectors `[batch, sequence, hidden]` (row-major), as
 * sentence-transformers pools: `mean` averages the tokens the attention mask keeps (special tokens
 * included), `cls` takes the first token, `max` the largest value of each component over the kept
 * tokens. Not normalised here. A sequence whose mask keeps nothing pools to zeros.
 */
export function poolTokens(hidden: Float32Array, dims: readonly [number, number, number], mask: readonly (readonly number[])[], pooling: Pooling): Float32Array[] {
  const [batch, sequence, size] = dims;
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b += 1) {
    const vector = new Float32Array(size);
    const row = (t: number) => hidden.subarray((b * sequence + t) * size, (b * sequence + t + 1) * size);
    if (pooling === 'cls') {
      vector.set(row(0));
    } else {
      let kept = 0;
      if (pooling === 'max') vector.fill(-Infinity);
      for (let t = 0; t < sequence; t += 1) {
        if ((mask[b]?.[t] ?? 0) === 0) continue;
        kept += 1;
        const token = row(t);
        for (let j = 0; j < size; j += 1) {
          const value = token[j] ?? 0;
          vector[j] = pooling === 'max' ? Math.max(vector[j] ?? -Infinity, value) : (vector[j] ?? 0) + value;
        }
      }
      if (kept === 0) vector.fill(0);
      else if (pooling === 'mean') for (let j = 0; j < size; j += 1) vector[j] = (vector[j] ?? 0) / kept;
    }
    out.push(vector);
  }
  return out;
}
