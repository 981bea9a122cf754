import { byScoreThenId } from './fusion.js';
import type { ScoredId } from './types.js';

/**
 * The pool with the memories of `chosen` scaled by (1 + bonus), best first (ties by id), and the
 * extra each got, for explain. Scaled, not added to: a memory no route found relevant stays at 0.
 * A bonus of 0, or nothing chosen, changes nothing.
 */
export function favour<T extends ScoredId>(pool: readonly T[], chosen: ReadonlySet<string>, bonus: number): { pool: T[]; extra: Map<string, number> } {
  const extra = new Map<string, number>();
  if (!(bonus > 0) || chosen.size === 0) return { pool: [...pool], extra };
  const scaled = pool.map((c): T => {
    if (!chosen.has(c.id)) return c;
    extra.set(c.id, c.score * bonus);
    return { ...c, score: c.score * (1 + bonus) };
  });
  return { pool: scaled.sort(byScoreThenId), extra };
}
