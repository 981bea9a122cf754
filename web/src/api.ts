/** The dashboard's only backend: the REST API of `lmem serve` (same origin, under /v1). */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field: string | null,
    readonly code: string,
  ) {
    super(message);
  }
}

/** Sent on window when the server asks for a token; the shell then shows the token form. */
export const unauthorizedEvent = 'lmem-unauthorized';

const tokenKey = 'lmem-token';
export const token = {
  get: (): string | null => sessionStorage.getItem(tokenKey),
  set: (value: string): void => sessionStorage.setItem(tokenKey, value),
};

type Query = Record<string, string | number | boolean | undefined | null>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

function headers(json: boolean): Record<string, string> {
  const out: Record<string, string> = json ? { 'content-type': 'application/json' } : {};
  const bearer = token.get();
  if (bearer) out.authorization = `Bearer ${bearer}`;
  return out;
}

/** Calls the API; a non-2xx answer becomes an ApiError with the server's {error, field, code}. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: headers(body !== undefined),
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const parsed = text && (response.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as unknown) : text;
  if (!response.ok) {
    if (response.status === 401) window.dispatchEvent(new Event(unauthorizedEvent));
    const e = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { error?: string; field?: string | null; code?: string };
    throw new ApiError(response.status, e.error ?? `${response.status} ${response.statusText}`, e.field ?? null, e.code ?? 'http_error');
  }
  return parsed as T;
}

export const get = <T>(path: string, query?: Query) => api<T>('GET', withQuery(path, query));
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, body);
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);

export interface Job {
  jobId: string;
  kind: string;
  state: 'running' | 'succeeded' | 'failed';
  progress: { done: number; total: number; step: string | null };
  result?: unknown;
  error: { error: string; field: string | null; code: string } | null;
}

/**
 * Follows a job's progress over Server-Sent Events until it ends. EventSource cannot send a
 * bearer header, so the stream is read with fetch.
 */
export async function followJob(job: Job, onProgress: (job: Job) => void): Promise<Job> {
  if (job.state !== 'running') return job;
  const response = await fetch(`/v1/jobs/${encodeURIComponent(job.jobId)}/events`, { headers: headers(false) });
  if (!response.ok || !response.body) throw new ApiError(response.status, 'could not follow the job', null, 'job_stream');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!data) continue;
      const view = JSON.parse(data) as Job;
      onProgress(view);
      if (event === 'done') {
        await reader.cancel();
        return view;
      }
    }
  }
  return get<Job>(`/v1/jobs/${encodeURIComponent(job.jobId)}`);
}
