import { createRequire } from 'node:module';

// worker_threads is loaded at a process's first one-shot thread: a command that starts none never loads it (ADR 26).
const lazyRequire = createRequire(import.meta.url);
const workerThreads = () => lazyRequire('node:worker_threads') as typeof import('node:worker_threads');

type Answer = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * `script` run once on a worker thread with `data` (a digest, a backup's copy or shred): the value
 * its `answerOnce` posts, or its failure as an error (`failed` words it; `stopped` names the thread
 * should it exit without answering). The thread is ended either way.
 */
export async function onThreadOnce<T>(script: URL, data: unknown, words: { readonly stopped: string; readonly failed?: (message: string) => string }): Promise<T> {
  const worker = new (workerThreads().Worker)(script, { workerData: data });
  try {
    return await new Promise<T>((resolve, reject) => {
      worker.once('message', (m: Answer) => (m.ok ? resolve(m.value as T) : reject(new Error(words.failed ? words.failed(m.message) : m.message))));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`${words.stopped} stopped (exit ${code})`)));
    });
  } finally {
    void worker.terminate();
  }
}

/** A one-shot thread's side: posts what `work` returns, or the message of what it threw. */
export function answerOnce(work: () => unknown): void {
  const { parentPort } = workerThreads();
  let answer: Answer;
  try {
    answer = { ok: true, value: work() };
  } catch (error) {
    answer = { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(answer);
}
