import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpReranker, rerankConfigSchema } from '../src/providers/rerank.js';
import { createHashEmbeddingProvider } from '../src/providers/embeddings/hash.js';
import type { EmbeddingProvider } from '../src/providers/embeddings/provider.js';
import { openTestEngine, tempDir } from './support/engine.js';

let server: Server | undefined;
let temp: ReturnType<typeof tempDir> | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
  temp?.remove();
  temp = undefined;
});

const body = (req: IncomingMessage) =>
  new Promise<Record<string, unknown>>((resolve) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
  });

/** A local stand-in for a /v1/rerank service: scores each document by whether it holds `prefer`. */
async function serve(answer: (docs: string[]) => unknown, status = 200): Promise<string> {
  server = createServer((req, res) => {
    void body(req).then((b) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer(b.documents as string[])));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

const config = (baseUrl: string) => rerankConfigSchema().parse({ provider: 'http', baseUrl, model: 'rerank-test', timeoutMs: 500 });

describe('HTTP reranker', () => {
  it('reorders by the service scores', async () => {
    const url = await serve((docs) => ({ results: docs.map((d, index) => ({ index, relevance_score: d.includes('violin') ? 0.9 : 0.1 })) }));
    const reranker = createHttpReranker(config(url));
    const ranked = await reranker.rerank('music', [{ id: 'a', text: 'piano lessons' }, { id: 'b', text: 'violin practice' }]);
    expect(ranked).toEqual([{ id: 'a', score: 0.1 }, { id: 'b', score: 0.9 }]);
  });

  it('rejects malformed answers and HTTP errors with clear messages', async () => {
    const bad = createHttpReranker(config(await serve(() => ({ results: [{ index: 7, relevance_score: 1 }] }))));
    await expect(bad.rerank('q', [{ id: 'a', text: 'x' }])).rejects.toThrow(/names document 7/);
    await new Promise((resolve) => server?.close(resolve));
    const failing = createHttpReranker(config(await serve(() => ({}), 503)));
    await expect(failing.rerank('q', [{ id: 'a', text: 'x' }])).rejects.toThrow(/HTTP 503/);
  });

  it('moves the preferred memory to the top of a recall, and a down service keeps the fused order', async () => {
    const url = await serve((docs) => ({ results: docs.map((d, index) => ({ index, relevance_score: d.includes('stamps') ? 1 : 0 })) }));
    temp = tempDir();
    const engine = await openTestEngine(temp.dir);
    await engine.writeMemory({ memoryId: 'a', text: 'Erin collects old coins and old stamps' });
    await engine.writeMemory({ memoryId: 'b', text: 'old coins old coins old coins' });
    const plain = await engine.recall({ query: 'old coins', scope: { mode: 'global' } });
    expect(plain.memories[0]?.memoryId).toBe('b');
    await engine.close();
    const reranked = await openTestEngine(temp.dir, { reranker: createHttpReranker(config(url)) });
    const answer = await reranked.recall({ query: 'old coins', scope: { mode: 'global' } });
    expect(answer.memories[0]?.memoryId).toBe('a');
    await reranked.close();
    const down = await openTestEngine(temp.dir, { reranker: createHttpReranker(config('http://127.0.0.1:9')) });
    expect((await down.recall({ query: 'old coins', scope: { mode: 'global' } })).memories[0]?.memoryId).toBe('b');
    await down.close();
  });
});

describe('route timeouts', () => {
  it('keeps the graph route when the document route runs past its timeout', async () => {
    temp = tempDir();
    const hash = createHashEmbeddingProvider({ dimension: 32 });
    let slow = false;
    const provider: EmbeddingProvider = {
      ...hash,
      embed: async (texts) => {
        if (slow) await new Promise((resolve) => setTimeout(resolve, 400));
        return hash.embed(texts);
      },
    };
    const engine = await openTestEngine(temp.dir, { embeddingProvider: provider, recallSettings: { routeTimeoutMs: 100 } });
    await engine.writeMemory({ memoryId: 'a', text: 'Karen studies volcanoes in Iceland', topics: ['volcanoes'] });
    slow = true;
    const answer = await engine.recall({ query: 'volcanoes', scope: { mode: 'global' }, explain: true });
    expect(answer.memories.map((m) => m.memoryId)).toEqual(['a']);
    expect(answer.memories[0]?.explain?.bonuses.degraded).toBe(1);
    expect(answer.memories[0]?.explain?.fused.document).toBe(0);
    await engine.close();
  });
});
