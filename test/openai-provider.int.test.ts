import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAiEmbeddingProvider, EmbeddingProviderError, type OpenAiProviderOptions } from '../src/providers/embeddings/index.js';
import { closeJsonServers, fakeTime, startJsonServer, type Handler as JsonHandler } from './support/json-server.js';

const dimension = 4;

type Handler = JsonHandler<EmbeddingRequest>;

interface EmbeddingRequest {
  model?: string;
  input?: string[];
}

const startServer = (handler: Handler, answerAfterMs?: number) => startJsonServer<EmbeddingRequest>(handler, answerAfterMs);

afterEach(closeJsonServers);

/** A vector that tells which input it was made for: [length, first char code, 1, 0]. */
const vectorFor = (text: string): number[] => [text.length, text.charCodeAt(0) || 0, 1, 0];

function answer(res: ServerResponse, input: readonly string[], map: (data: { index: number; embedding: unknown }[]) => unknown = (d) => d): void {
  const data = input.map((text, index) => ({ object: 'embedding', index, embedding: vectorFor(text) }));
  // Answered in reverse order: the provider must place vectors by `index`.
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: map(data.reverse()), model: 'm' }));
}

const ok: Handler = (request, res) => answer(res, request.body.input ?? []);

const texts = (n: number): string[] => Array.from({ length: n }, (_, i) => `text ${String.fromCharCode(65 + i)}${'x'.repeat(i)}`);

function provider(baseUrl: string, options: Partial<OpenAiProviderOptions> = {}, deps = fakeTime()) {
  const p = createOpenAiEmbeddingProvider(
    { baseUrl, model: 'test-embed', apiKey: 'sk-test', dimension, retryBaseMs: 10, requestDelayMs: 20, timeoutMs: 2000, ...options },
    deps,
  );
  return Object.assign(p, { time: deps });
}

const expectVectorsFor = (vectors: Float32Array[], inputs: readonly string[]): void => {
  expect(vectors).toHaveLength(inputs.length);
  vectors.forEach((v, i) => {
    const raw = vectorFor(inputs[i] ?? '');
    const norm = Math.hypot(...raw);
    expect(Array.from(v)).toEqual(raw.map((x) => Math.fround(x / norm)));
  });
};

describe('openai-compatible embedding provider (real local HTTP server)', () => {
  it('sends batches of 8, one request at a time, with the key, and returns vectors in input order', async () => {
    const s = await startServer(ok);
    const p = provider(s.baseUrl);
    const inputs = texts(20);
    expectVectorsFor(await p.embed(inputs), inputs);
    expect(s.requests).toHaveLength(Math.ceil(20 / 8));
    expect(s.requests.map((r) => r.body.input?.length)).toEqual([8, 8, 4]);
    expect(s.requests.flatMap((r) => r.body.input ?? [])).toEqual(inputs);
    for (const r of s.requests) {
      expect(r).toMatchObject({ method: 'POST', path: '/v1/embeddings', body: { model: 'test-embed' } });
      expect(r.headers.authorization).toBe('Bearer sk-test');
      expect(r.headers['content-type']).toMatch(/application\/json/);
    }
    expect(p.time.sleeps).toEqual([20, 20]);
    expect(s.maxInFlight()).toBe(1);
    expect(await p.embed([])).toEqual([]);
  });

  it('queues concurrent embed calls so that requests never overlap', async () => {
    const s = await startServer(ok, 15);
    const p = provider(`${s.baseUrl}/v1/`, { apiKey: undefined });
    const [a, b] = [texts(17), texts(9).map((t) => `b ${t}`)];
    const [va, vb] = await Promise.all([p.embed(a), p.embed(b)]);
    expectVectorsFor(va, a);
    expectVectorsFor(vb, b);
    expect(s.requests).toHaveLength(3 + 2);
    expect(s.maxInFlight()).toBe(1);
    expect(s.requests[0]?.path).toBe('/v1/embeddings');
    expect(s.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('on 429 honours Retry-After, retries, and doubles the gap between requests', async () => {
    const s = await startServer((request, res) => {
      if (request.n !== 2) return ok(request, res);
      res.writeHead(429, { 'retry-after': '3', 'content-type': 'application/json' }).end('{"error":{"message":"Rate limit reached for requests"}}');
    });
    const p = provider(s.baseUrl);
    const inputs = texts(24);
    expectVectorsFor(await p.embed(inputs), inputs);
    expect(s.requests).toHaveLength(4);
    expect(s.requests[2]?.body.input).toEqual(s.requests[1]?.body.input);
    // 20 before request 2; 3 s from Retry-After (which also covers the new 40 ms gap); then 40.
    expect(p.time.sleeps).toEqual([20, 3000, 40]);
    expect(p.requestDelayMs).toBe(40);
  });

  it('slows down in real time too: the server sees the gap between requests grow', async () => {
    const s = await startServer((request, res) => {
      if (request.n !== 2) return ok(request, res);
      res.writeHead(429, { 'retry-after': '0' }).end('slow down');
    }, 0);
    const p = createOpenAiEmbeddingProvider({ baseUrl: s.baseUrl, model: 'm', dimension, retryBaseMs: 10, requestDelayMs: 30 });
    await p.embed(texts(24));
    expect(s.requests).toHaveLength(4);
    const gap = (k: number): number => (s.requests[k]?.arrivedAt ?? 0) - (s.finishedAt[k - 1] ?? 0);
    expect(gap(1)).toBeGreaterThanOrEqual(25);
    expect(gap(3)).toBeGreaterThanOrEqual(55);
    expect(p.requestDelayMs).toBe(60);
  });

  it('treats an answer that mentions a rate limit as one, whatever its status', async () => {
    const s = await startServer((request, res) => {
      if (request.n === 1) return void res.writeHead(400).end('{"error":{"message":"You exceeded your rate_limit"}}');
      if (request.n === 2) return void res.writeHead(200).end('{"error":{"message":"Rate limit, try later"}}');
      ok(request, res);
    });
    const p = provider(s.baseUrl);
    expectVectorsFor(await p.embed(['a', 'b']), ['a', 'b']);
    expect(s.requests).toHaveLength(3);
    expect(p.requestDelayMs).toBe(80);
    // Backoff 10, then the rest of the doubled 40 ms gap; backoff 20, then the rest of the 80 ms gap.
    expect(p.time.sleeps).toEqual([10, 30, 20, 60]);
  });

  it('retries a request that times out, and then succeeds', async () => {
    const s = await startServer((request, res) => (request.n === 1 ? 'hang' : ok(request, res)));
    const p = createOpenAiEmbeddingProvider({ baseUrl: s.baseUrl, model: 'm', dimension, timeoutMs: 100, retryBaseMs: 10, requestDelayMs: 0 });
    const started = Date.now();
    expectVectorsFor(await p.embed(['hello', 'world']), ['hello', 'world']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]?.body.input).toEqual(['hello', 'world']);
  });

  it('gives up after 5 retries of a 5xx with a clear error, returning nothing', async () => {
    const s = await startServer((request, res) => (request.n === 1 ? ok(request, res) : void res.writeHead(500).end('upstream exploded')));
    const p = provider(s.baseUrl, { requestDelayMs: 0 });
    const failure = p.embed(texts(12));
    await expect(failure).rejects.toThrow(EmbeddingProviderError);
    await expect(failure).rejects.toThrow(/batch 2\/2 failed after 6 attempts; last: HTTP 500: upstream exploded/);
    expect(s.requests).toHaveLength(1 + 6);
    expect(p.time.sleeps).toEqual([10, 20, 40, 80, 160]);
  });

  it('gives up on a lasting rate limit, naming it', async () => {
    const s = await startServer((_request, res) => void res.writeHead(429).end('Too Many Requests'));
    const p = provider(s.baseUrl, { maxRetries: 2, maxRequestDelayMs: 50 });
    await expect(p.embed(['a'])).rejects.toThrow(/failed after 3 attempts; last: rate limited \(HTTP 429: Too Many Requests\)/);
    expect(p.requestDelayMs).toBe(50);
  });

  it.each<[string, Handler, RegExp]>([
    ['malformed JSON', (_r, res) => void res.writeHead(200).end('{"data": [oops'), /malformed answer: not JSON/],
    ['a missing data array', (_r, res) => void res.writeHead(200).end('{"object":"list"}'), /malformed answer: "data" is not an array/],
    ['the wrong vector count', (r, res) => answer(res, r.body.input ?? [], (d) => d.slice(1)), /wrong vector count: 7 vectors for 8 inputs/],
    ['the wrong dimension', (r, res) => answer(res, r.body.input ?? [], (d) => d.map((x) => ({ ...x, embedding: [1, 2, 3] }))), /wrong dimension: vector \d has 3 values, expected 4/],
    ['a non-number', (r, res) => answer(res, r.body.input ?? [], (d) => d.map((x) => ({ ...x, embedding: [1, 'two', 3, 4] }))), /non-number in vector \d at 1: "two"/],
    ['a bad index', (r, res) => answer(res, r.body.input ?? [], (d) => d.map((x) => ({ ...x, index: 9 }))), /data\[0\]\.index is 9, expected 0\.\.7/],
    ['HTTP 401', (_r, res) => void res.writeHead(401).end('{"error":"invalid api key"}'), /HTTP 401: \{"error":"invalid api key"\} \(check the API key\)/],
    ['HTTP 400', (_r, res) => void res.writeHead(400).end('input too long'), /HTTP 400: input too long/],
  ])('rejects %s at once, naming the problem', async (_name, handler, message) => {
    const s = await startServer(handler);
    const p = provider(s.baseUrl);
    await expect(p.embed(texts(8))).rejects.toThrow(message);
    expect(s.requests).toHaveLength(1);
    expect(p.time.sleeps).toEqual([]);
  });
});
