import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Communities, CommunityOptions, WeightedTie } from '../../queries/communities.js';
import type { LouvainRequest } from './louvain-thread.js';

type Answer = { id: number; ok: true; found: Communities } | { id: number; ok: false; message: string };

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
  const pending = new Map<number, { resolve: (c: Communities) => void; reject: (e: Error) => void }>();
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
      if (answer.ok) waiting?.resolve(answer.found);
      else waiting?.reject(new Error(`community detection failed: ${answer.message}`));
    });
    w.on('error', (error) => failAll(error));
    w.on('exit', (code) => failAll(new Error(`the community thread stopped (exit ${code})`)));
    return w;
  };
  return {
    communities(nodes: readonly string[], ties: readonly WeightedTie[], options?: CommunityOptions): Promise<Communities> {
      worker ??= start();
      const id = (next += 1);
      const request: LouvainRequest = { id, nodes, ties, ...(options ? { options } : {}) };
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker?.postMessage(request);
      });
    },
    async close(): Promise<void> {
      const w = worker;
      worker = null;
      await w?.terminate();
    },
  };
}

export type LouvainPool = ReturnType<typeof createLouvainPool>;
