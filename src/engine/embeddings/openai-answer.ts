import { toUnitVector } from './provider.js';

/** What one HTTP exchange came to: vectors, or why not and whether trying again may help. */
export type Outcome =
  | { readonly ok: true; readonly vectors: Float32Array[] }
  | { readonly ok: false; readonly retry: boolean; readonly rateLimited: boolean; readonly retryAfterMs?: number; readonly detail: string };

const rateLimitText = /rate[\s_-]?limit/i;

/** The body, shortened and on one line, for error messages. */
export function snippet(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line || '(empty body)';
}

/** `retry-after-ms`, else `retry-after` as seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, nowMs: number): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  if (Number.isFinite(Number(value))) return Math.max(0, Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Classifies a non-2xx answer: 429 or a body about rate limits, 408 and 5xx retry; other 4xx do not. */
export function failedAnswer(status: number, body: string, headers: Headers, nowMs: number): Outcome {
  const detail = `HTTP ${status}: ${snippet(body)}`;
  if (status === 429 || rateLimitText.test(body)) {
    const after = retryAfterMs(headers, nowMs);
    return { ok: false, retry: true, rateLimited: true, ...(after === undefined ? {} : { retryAfterMs: after }), detail: `rate limited (${detail})` };
  }
  if (status === 408 || status >= 500) return { ok: false, retry: true, rateLimited: false, detail };
  const hint = status === 401 || status === 403 ? ' (check the API key)' : '';
  return { ok: false, retry: false, rateLimited: false, detail: `${detail}${hint}` };
}

const malformed = (detail: string): Outcome => ({ ok: false, retry: false, rateLimited: false, detail: `malformed answer: ${detail}` });

/** Checks a 2xx body: `{ data: [{ index, embedding }] }` with one vector per input, each of `dimension` finite numbers. */
export function parseAnswer(body: string, headers: Headers, nowMs: number, count: number, dimension: number): Outcome {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    return malformed(`not JSON (${(error as Error).message}): ${snippet(body)}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return malformed(`expected an object, got ${snippet(body)}`);
  const { data, error } = json as { data?: unknown; error?: unknown };
  if (error !== undefined && data === undefined) {
    const text = JSON.stringify(error) ?? '';
    if (rateLimitText.test(text)) return failedAnswer(429, text, headers, nowMs);
    return { ok: false, retry: false, rateLimited: false, detail: `the server answered an error: ${snippet(text)}` };
  }
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
  return { ok: true, vectors: vectors as Float32Array[] };
}
