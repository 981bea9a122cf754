import { errorInBody, snippet, type Outcome } from '../http/failures.js';
import { toUnitVector } from './provider.js';

type VectorsOutcome = Outcome<Float32Array[]>;

const malformed = (detail: string): VectorsOutcome => ({ ok: false, retry: false, rateLimited: false, detail: `malformed answer: ${detail}` });

/** Checks a 2xx body: `{ data: [{ index, embedding }] }` with one vector per input, each of `dimension` finite numbers. */
export function parseAnswer(body: string, headers: Headers, nowMs: number, count: number, dimension: number): VectorsOutcome {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    return malformed(`not JSON (${(error as Error).message}): ${snippet(body)}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return malformed(`expected an object, got ${snippet(body)}`);
  const { data, error } = json as { data?: unknown; error?: unknown };
  if (error !== undefined && data === undefined) return errorInBody(error, headers, nowMs);
  if (!Array.isArray(data)) return malformed(`"data" is not an array: ${snippet(body)}`);
  if (data.length !== count) return malformed(`wrong vector count: ${data.length} vectors for ${count} inputs`);
  const vectors: (Float32Array | undefined)[] = new Array(count).fill(undefined);
  for (const [position, item] of data.entries()) {
    const { index, embedding } = (typeof item === 'object' && item !== null ? item : {}) as { index?: unknown; embedding?: unknown };
    // `index` says which input a vector belongs to; without it, answers are taken in order.
    const slot = index === undefined ? position : index;
    if (typeof slot !== 'number' || !Number.isInteger(slot) || slot < 0 || slot >= count) return malformed(`data[${position}].index is ${JSON.stringify(index)}, expected 0..${count - 1}`);
    if (vectors[slot] !== undefined) return malformed(`index ${slot} appears twice`);
    if (!Array.isArray(embedding)) return malformed(`data[${position}].embedding is not an array of numbers`);
    if (embedding.length !== dimension) return malformed(`wrong dimension: vector ${slot} has ${embedding.length} values, expected ${dimension}`);
    const bad = embedding.findIndex((v) => typeof v !== 'number' || !Number.isFinite(v));
    if (bad >= 0) return malformed(`non-number in vector ${slot} at ${bad}: ${JSON.stringify(embedding[bad])}`);
    vectors[slot] = toUnitVector(embedding as number[]);
  }
  return { ok: true, value: vectors as Float32Array[] };
}
