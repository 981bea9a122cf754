/**
 * Document-level recall candidates by query and scope, for `ttlMs` of request time. Any write
 * invalidates everything; a computation that started before an invalidation is not stored. It has
 * its own lock: identical recalls in flight share one computation. At most `maxEntries` are kept,
 * the oldest going first, and an expired one goes when a newer is stored: with distinct queries
 * and no write, a server's cache grew by one entry a recall for as long as it ran.
 */
export function createRecallCache<V>(ttlMs = 45_000, maxEntries = 1_000) {
  const entries = new Map<string, { readonly at: number; readonly value: V }>();
  const inFlight = new Map<string, Promise<V>>();
  let generation = 0;
  let hits = 0;
  let misses = 0;
  const fresh = (entry: { readonly at: number }, nowMs: number): boolean => nowMs - entry.at < ttlMs && nowMs >= entry.at;
  const store = (key: string, nowMs: number, value: V): void => {
    entries.delete(key);
    entries.set(key, { at: nowMs, value });
    // Oldest first (insertion order): past the bound, or expired.
    for (const [oldest, entry] of entries) {
      if (entries.size <= maxEntries && fresh(entry, nowMs)) break;
      entries.delete(oldest);
    }
  };
  return {
    async getOrCompute(key: string, nowMs: number, compute: () => Promise<V>): Promise<{ value: V; hit: boolean }> {
      const entry = entries.get(key);
      if (entry && fresh(entry, nowMs)) {
        hits += 1;
        return { value: entry.value, hit: true };
      }
      entries.delete(key);
      const shared = inFlight.get(key);
      if (shared) return { value: await shared, hit: true };
      misses += 1;
      const started = generation;
      const run = compute();
      inFlight.set(key, run);
      try {
        const value = await run;
        if (generation === started) store(key, nowMs, value);
        return { value, hit: false };
      } finally {
        inFlight.delete(key);
      }
    },
    invalidate(): void {
      generation += 1;
      entries.clear();
    },
    stats: () => ({ size: entries.size, hits, misses }),
  };
}

export type RecallCache<V> = ReturnType<typeof createRecallCache<V>>;
