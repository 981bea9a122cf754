import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Communities, CommunityOptions, WeightedTie } from '../../queries/communities.js';
import { packTies, type LouvainAnswer, type LouvainRequest } from './louvain-protocol.js';

type Answer = { id: number; ok: true; answer: LouvainAnswer } | { id: number; ok: false; message: string };

/**
 * The compiled thread script. Under the test runner this module is TypeScript source, which a
 * worker thread cannot load, so it falls back to the build `npm test` makes first.
 */
function threadScript(): URL {
  const beside = new URL('./louvain-thread.js', import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  return new URL('../../../dist/src/interfaces/http/louvain-thread.js', import.meta.url);
}

/** One lazily started worker thread that computes Louvain communities, one request after another. */
export function createLouvainPool() {
  let worker: Worker | null = null;
  let next = 0;
  const pending = new Map<number, { nodes: readonly string[]; resolve: (c: Communities) => void; reject: (e: Error) => void }>();
  const failAll = (error: Error) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
    worker = null;
  };
  const start = (): Worker => {
    const w = new Worker(threadScript());
    w.unref();
    w.on('message', (answer: Answer) => {
      const waiting = pending.get(answer.id);
      pending.delete(answer.id);
      if (!waiting) return;
      if (answer.ok) {
        const { community, ...rest } = answer.answer;
        waiting.resolve({ ...rest, byNode: new Map(waiting.nodes.map((key, i) => [key, community[i] ?? 0])) });
      } else waiting.reject(new Error(`community detection failed: ${answer.message}`));
    });
    w.on('error', (error) => failAll(error));
    w.on('exit', (code) => failAll(new Error(`the community thread stopped (exit ${code})`)));
    return w;
  };
  return {
    communities(nodes: readonly string[], ties: readonly WeightedTie[], options?: CommunityOptions): Promise<Communities> {
      worker ??= start();
      const id = (next += 1);
      const request: LouvainRequest = { id, nodes, ...packTies(nodes, ties), ...(options ? { options } : {}) };
      return new Promise((resolve, reject) => {
        pending.set(id, { nodes, resolve, reject });
        worker?.postMessage(request, [request.sources.buffer, request.targets.buffer, request.weights.buffer]);
      });
    },
    async close(): Promise<void> {
      const w = worker;
      worker = null;
      await w?.terminate();
    },
  };
}

type LouvainPool = ReturnType<typeof createLouvainPool>;
