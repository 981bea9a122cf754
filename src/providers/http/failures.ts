/** Why one HTTP exchange gave nothing usable, and whether trying again may help. */
export interface Failure {
  readonly ok: false;
  readonly retry: boolean;
  readonly rateLimited: boolean;
  readonly retryAfterMs?: number;
  readonly detail: string;
}

/** What one HTTP exchange came to: a checked value, or a failure. */
export type Outcome<T> = { readonly ok: true; readonly value: T } | Failure;

const rateLimitText = /rate[\s_-]?limit/i;

/** Whether a body or error text speaks of a rate limit (some servers say so with status 200 or 400). */
export function mentionsRateLimit(text: string): boolean {
  return rateLimitText.test(text);
}

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
export function failedAnswer(status: number, body: string, headers: Headers, nowMs: number): Failure {
  const detail = `HTTP ${status}: ${snippet(body)}`;
  if (status === 429 || mentionsRateLimit(body)) {
    const after = retryAfterMs(headers, nowMs);
    return { ok: false, retry: true, rateLimited: true, ...(after === undefined ? {} : { retryAfterMs: after }), detail: `rate limited (${detail})` };
  }
  if (status === 408 || status >= 500) return { ok: false, retry: true, rateLimited: false, detail };
  const hint = status === 401 || status === 403 ? ' (check the API key)' : '';
  return { ok: false, retry: false, rateLimited: false, detail: `${detail}${hint}` };
}

/** A 2xx body of `{ error }` without the expected payload: a rate limit retries, anything else does not. */
export function errorInBody(error: unknown, headers: Headers, nowMs: number): Failure {
  const text = JSON.stringify(error) ?? '';
  if (mentionsRateLimit(text)) return failedAnswer(429, text, headers, nowMs);
  return { ok: false, retry: false, rateLimited: false, detail: `the server answered an error: ${snippet(text)}` };
}
