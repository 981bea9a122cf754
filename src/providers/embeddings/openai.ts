import type { Outcome } from '../http/failures.js';
import { jsonHeaders, postJson, v1Url } from '../http/post-json.js';
import { httpClient, type HttpClientDeps } from '../http/client-deps.js';
import { withRetries } from '../http/retry.js';
import { parseAnswer } from './openai-answer.js';
import { EmbeddingProviderError, truncateForEmbedding, type EmbeddingProvider } from './provider.js';

export interface OpenAiProviderOptions {
  /** Server root, e.g. `https://api.openai.com`; requests go to `{baseUrl}/v1/embeddings` (a trailing `/v1` is not doubled). */
  readonly baseUrl: string;
  readonly model: string;
  /** Sent as `Authorization: Bearer <apiKey>`; omitted when absent (local servers). */
  readonly apiKey?: string | undefined;
  /** Length the server's vectors must have. */
  readonly dimension: number;
  /** Per request, body included; default 30 000. */
  readonly timeoutMs?: number;
  /** Backoff before retry k (0-based) is retryBaseMs * 2^k, capped at maxBackoffMs; default 30 000. */
  readonly retryBaseMs?: number;
  /** Gap between the end of one request and the start of the next; default 200. */
  readonly requestDelayMs?: number;
  /** Cap for the gap once rate limits have doubled it; default 60 000. */
  readonly maxRequestDelayMs?: number;
  /** Retries per batch after the first attempt; default 5. */
  readonly maxRetries?: number;
  /** Cap for one backoff or Retry-After wait; default 600 000. */
  readonly maxBackoffMs?: number;
  /** Inputs per request; default 8. */
  readonly batchSize?: number;
  /** Default 4000 (CJK text runs to about two tokens a character). */
  readonly maxInputChars?: number;
}

/** Clock, sleep and fetch the provider uses; see HttpClientDeps. */
export type OpenAiProviderDeps = HttpClientDeps;

export interface OpenAiEmbeddingProvider extends EmbeddingProvider {
  /** The current gap between requests; it doubles (up to its cap) after every rate-limited answer. */
  readonly requestDelayMs: number;
}

export const openAiDefaults = {
  timeoutMs: 30_000,
  retryBaseMs: 30_000,
  requestDelayMs: 200,
  maxRequestDelayMs: 60_000,
  maxRetries: 5,
  maxBackoffMs: 600_000,
  batchSize: 8,
  maxInputChars: 4000,
} as const;

export function embeddingsUrl(baseUrl: string): string {
  return v1Url(baseUrl, 'embeddings');
}

/**
 * Any OpenAI-compatible `POST /v1/embeddings`. Requests go strictly one after another (calls to
 * `embed` queue behind each other), in batches, spaced by a delay that grows on rate limits. A
 * timeout, a network error, 408, 429 and 5xx are retried with exponential backoff (429 honours
 * Retry-After); other 4xx and malformed answers fail at once. `embed` returns every vector or rejects.
 */
export function createOpenAiEmbeddingProvider(options: OpenAiProviderOptions, deps: OpenAiProviderDeps = {}): OpenAiEmbeddingProvider {
  const d = openAiDefaults;
  const o = {
    model: options.model,
    dimension: options.dimension,
    timeoutMs: options.timeoutMs ?? d.timeoutMs,
    retryBaseMs: options.retryBaseMs ?? d.retryBaseMs,
    requestDelayMs: options.requestDelayMs ?? d.requestDelayMs,
    maxRequestDelayMs: options.maxRequestDelayMs ?? d.maxRequestDelayMs,
    maxRetries: options.maxRetries ?? d.maxRetries,
    maxBackoffMs: options.maxBackoffMs ?? d.maxBackoffMs,
    batchSize: options.batchSize ?? d.batchSize,
    maxInputChars: options.maxInputChars ?? d.maxInputChars,
  };
  for (const key of ['dimension', 'timeoutMs', 'batchSize', 'maxInputChars'] as const) {
    if (!Number.isInteger(o[key]) || o[key] < 1) throw new RangeError(`openai ${key} must be a positive integer, got ${o[key]}`);
  }
  for (const key of ['retryBaseMs', 'requestDelayMs', 'maxRequestDelayMs', 'maxRetries', 'maxBackoffMs'] as const) {
    if (!Number.isFinite(o[key]) || o[key] < 0) throw new RangeError(`openai ${key} must be a non-negative number, got ${o[key]}`);
  }
  if (!Number.isInteger(o.maxRetries)) throw new RangeError(`openai maxRetries must be an integer, got ${o.maxRetries}`);
  if (o.model.length === 0) throw new RangeError('openai model must not be empty');
  const { sleep, nowMs, fetchFn } = httpClient(deps);
  const url = embeddingsUrl(options.baseUrl);
  const headers = jsonHeaders(options.apiKey);
  let requestDelayMs = o.requestDelayMs;
  let lastRequestEnd: number | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const spaceOut = async (): Promise<void> => {
    if (lastRequestEnd === undefined) return;
    const wait = requestDelayMs - (nowMs() - lastRequestEnd);
    if (wait > 0) await sleep(wait);
  };

  const attempt = async (input: readonly string[]): Promise<Outcome<Float32Array[]>> => {
    await spaceOut();
    const sent = await postJson({ fetch: fetchFn, url, headers, body: { model: o.model, input }, timeoutMs: o.timeoutMs, nowMs });
    lastRequestEnd = nowMs();
    const outcome = sent.ok ? parseAnswer(sent.value.text, sent.value.headers, nowMs(), input.length, o.dimension) : sent;
    if (!outcome.ok && outcome.rateLimited) requestDelayMs = Math.min(o.maxRequestDelayMs, Math.max(1, requestDelayMs * 2));
    return outcome;
  };

  const embedBatch = async (input: readonly string[], label: string): Promise<Float32Array[]> => {
    const result = await withRetries({ maxRetries: o.maxRetries, retryBaseMs: o.retryBaseMs, maxBackoffMs: o.maxBackoffMs, sleep }, () => attempt(input));
    if (result.ok) return result.value;
    const { failure, attempts } = result;
    if (!failure.retry) throw new EmbeddingProviderError('openai', `${label}: ${failure.detail}`);
    throw new EmbeddingProviderError('openai', `${label} failed after ${attempts} attempts; last: ${failure.detail}`);
  };

  const run = async (texts: readonly string[]): Promise<Float32Array[]> => {
    // Servers refuse an empty input, so an empty text is sent as one space.
    const inputs = texts.map((text) => {
      const cut = truncateForEmbedding(text, o.maxInputChars);
      return cut.trim() === '' ? ' ' : cut;
    });
    const batches = Math.ceil(inputs.length / o.batchSize);
    const vectors: Float32Array[] = [];
    for (let b = 0; b < batches; b += 1) {
      const batch = inputs.slice(b * o.batchSize, (b + 1) * o.batchSize);
      vectors.push(...(await embedBatch(batch, `${url} model ${o.model}, batch ${b + 1}/${batches}`)));
    }
    return vectors;
  };

  return {
    fingerprint: {
      provider: 'openai',
      model: o.model,
      dimension: o.dimension,
      settings: { endpoint: url, maxInputChars: o.maxInputChars },
    },
    maxInputChars: o.maxInputChars,
    get requestDelayMs() {
      return requestDelayMs;
    },
    embed(texts) {
      const result = queue.then(() => run(texts));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}
