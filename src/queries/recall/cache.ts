/**
 * Document-level recall candidates by query and scope, for `ttlMs` of request time. Any write
 * invalidates everything; a computation that started before an invalidation is not stored. It has
 * its own lock: identical recalls in flight share one computation.
 */
export function createRecallCache<V>(ttlMs = 45_000) {
  const entries = new Map<string, { readonly at: number; readonly value: V }>();
  const inFlight = new Map<string, Promise<V>>();
  let generation = 0;
  let hits = 0;
  let misses = 0;
  return {
    async getOrCompute(key: string, nowMs: number, compute: () => Promise<V>): Promise<{ value: V; hit: boolean }> {
      const entry = entries.get(key);
      if (entry && nowMs - entry.at < ttlMs && nowMs >= entry.at) {
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
        if (generation === started) entries.set(key, { at: nowMs, value });
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
