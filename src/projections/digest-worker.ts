import { onThreadOnce } from '../events/one-shot-thread.js';
import { threadScript } from '../events/thread-script.js';
import type { DigestPlan } from './digest.js';

/** `plan` digested on a thread of its own; null when no thread script is built (the caller digests it). */
export async function digestOnThread(plan: DigestPlan): Promise<{ digest: string; position: bigint } | null> {
  const script = threadScript(import.meta.url, 'digest-thread.js');
  if (!script) return null;
  const answer = await onThreadOnce<{ digest: string; position: string }>(script, plan, {
    stopped: `the digest thread of ${plan.name}`,
    failed: (message) => `digest of ${plan.name} generation ${plan.generation}: ${message}`,
  });
  return { digest: answer.digest, position: BigInt(answer.position) };
}
