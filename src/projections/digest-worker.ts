import { createRequire } from 'node:module';
import { threadScript } from '../events/thread-script.js';
import type { DigestPlan } from './digest.js';

// worker_threads is loaded at the first digest of a file: a command that never rebuilds never loads it (ADR 26).
const lazyRequire = createRequire(import.meta.url);

/** `plan` digested on a thread of its own; null when no thread script is built (the caller digests it). */
export async function digestOnThread(plan: DigestPlan): Promise<{ digest: string; position: bigint } | null> {
  const script = threadScript(import.meta.url, 'digest-thread.js');
  if (!script) return null;
  const { Worker } = lazyRequire('node:worker_threads') as typeof import('node:worker_threads');
  const worker = new Worker(script, { workerData: plan });
  try {
    const answer = await new Promise<{ digest: string; position: string }>((resolve, reject) => {
      worker.once('message', (m: { ok: true; digest: string; position: string } | { ok: false; message: string }) =>
        m.ok ? resolve(m) : reject(new Error(`digest of ${plan.name} generation ${plan.generation}: ${m.message}`)),
      );
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the digest thread of ${plan.name} stopped (exit ${code})`)));
    });
    return { digest: answer.digest, position: BigInt(answer.position) };
  } finally {
    void worker.terminate();
  }
}
