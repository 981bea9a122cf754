import type { ServerConfig } from '../../engine/server-config.js';

/** An OpenAI-style error body, the shape the proxy's clients (the `openai` package) read. */
export const openAiError = (message: string, type: string, code: string, param: string | null = null) => ({ error: { message, type, param, code } });

export class UpstreamError extends Error {
  constructor(
    readonly status: number,
    readonly body: ReturnType<typeof openAiError>,
  ) {
    super(body.error.message);
  }
}

/**
 * Posts the request to `<upstream.baseUrl>/chat/completions` with the configured key (never the
 * caller's token). A timeout is 504 and an unreachable upstream 502; the upstream's own error
 * answers come back as they are, for the caller to pass through.
 */
export async function postUpstream(upstream: ServerConfig['upstream'], body: unknown): Promise<Response> {
  if (!upstream.baseUrl) throw new UpstreamError(503, openAiError('no upstream configured (server.upstream.baseUrl, LIVINGMEMORY_UPSTREAM_BASE_URL)', 'server_error', 'no_upstream'));
  const url = `${upstream.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  try {
    return await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(upstream.apiKey ? { authorization: `Bearer ${upstream.apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(upstream.timeoutMs),
    });
  } catch (error) {
    throw asUpstreamError(error, upstream.timeoutMs);
  }
}

export function asUpstreamError(error: unknown, timeoutMs: number): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new UpstreamError(504, openAiError(`the upstream did not answer within ${timeoutMs} ms`, 'timeout', 'upstream_timeout'));
  }
  return new UpstreamError(502, openAiError(`the upstream could not be reached: ${(error as Error).message}`, 'server_error', 'upstream_unreachable'));
}
