import { defaultSleep } from './retry.js';

/** What an HTTP provider reaches outside itself; tests pass a fake clock, sleep and fetch. */
export interface HttpClientDeps {
  /** Every wait goes through this; default setTimeout. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Read only for request spacing and HTTP-date Retry-After; default the system clock. */
  readonly now?: () => Date;
  readonly fetch?: typeof globalThis.fetch;
}

/** The deps with their defaults filled in. */
export function httpClient(deps: HttpClientDeps) {
  // The system clock is the default only here, at the edge where a provider meets the network.
  const now = deps.now ?? ((): Date => new Date());
  return { sleep: deps.sleep ?? defaultSleep, nowMs: (): number => now().getTime(), fetchFn: deps.fetch ?? globalThis.fetch };
}
