import type { Failure, Outcome } from './failures.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly maxRetries: number;
  /** Backoff before retry k (0-based) is retryBaseMs * 2^k, capped at maxBackoffMs; a Retry-After replaces it. */
  readonly retryBaseMs: number;
  readonly maxBackoffMs: number;
  /** Every wait goes through this, so tests can run on a fake clock. */
  readonly sleep: (ms: number) => Promise<void>;
}

/** Either the value, or the failure that ended the tries and how many attempts were made. */
export type RetryResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: Failure; readonly attempts: number };

export const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `sleep(ms)`, but rejecting with the signal's reason as soon as it is aborted. */
async function sleepUnlessAborted(sleep: (ms: number) => Promise<void>, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return sleep(ms);
  signal.throwIfAborted();
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([sleep(ms), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Calls `attempt` until it succeeds, fails in a way that retrying cannot mend, or has been retried
 * `maxRetries` times, with exponential backoff in between. An aborted `signal` rejects with its
 * reason, also while waiting.
 */
export async function withRetries<T>(policy: RetryPolicy, attempt: () => Promise<Outcome<T>>, signal?: AbortSignal): Promise<RetryResult<T>> {
  for (let retry = 0; ; retry += 1) {
    signal?.throwIfAborted();
    const outcome = await attempt();
    if (outcome.ok) return outcome;
    if (!outcome.retry || retry >= policy.maxRetries) return { ok: false, failure: outcome, attempts: retry + 1 };
    await sleepUnlessAborted(policy.sleep, Math.min(policy.maxBackoffMs, outcome.retryAfterMs ?? policy.retryBaseMs * 2 ** retry), signal);
  }
}
