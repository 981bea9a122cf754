import { failedAnswer, type Outcome } from './failures.js';

export interface PostJsonRequest {
  readonly fetch: typeof globalThis.fetch;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly timeoutMs: number;
  /** Read for Retry-After dates. */
  readonly nowMs: () => number;
  /** The caller's cancel: when it fires the promise rejects with its reason instead of reporting a retryable failure. */
  readonly signal?: AbortSignal | undefined;
}

/** The raw 2xx answer, for the caller to check. */
export interface RawAnswer {
  readonly text: string;
  readonly headers: Headers;
}

/** `{baseUrl}/v1/{path}`, without doubling a `/v1` the base URL already ends with. */
export function v1Url(baseUrl: string, path: string): string {
  const root = baseUrl.replace(/\/+$/, '');
  return root.endsWith('/v1') ? `${root}/${path}` : `${root}/v1/${path}`;
}

/** JSON headers, with `Authorization: Bearer` only when a key is given (local servers take none). */
export function jsonHeaders(apiKey: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  return headers;
}

/**
 * One POST of a JSON body within `timeoutMs` (body read included). A timeout and a network error
 * are retryable failures; a non-2xx answer is classified by `failedAnswer`.
 */
export async function postJson(request: PostJsonRequest): Promise<Outcome<RawAnswer>> {
  const { signal } = request;
  signal?.throwIfAborted();
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), request.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
  try {
    const response = await request.fetch(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify(request.body), signal: combined });
    const text = await response.text();
    if (!response.ok) return failedAnswer(response.status, text, response.headers, request.nowMs());
    return { ok: true, value: { text, headers: response.headers } };
  } catch (error) {
    signal?.throwIfAborted();
    if (timeout.signal.aborted) return { ok: false, retry: true, rateLimited: false, detail: `timed out after ${request.timeoutMs} ms` };
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    return { ok: false, retry: true, rateLimited: false, detail: `request failed: ${(error as Error).message}${cause ? ` (${cause})` : ''}` };
  } finally {
    clearTimeout(timer);
  }
}
