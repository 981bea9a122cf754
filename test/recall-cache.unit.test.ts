import { describe, expect, it } from 'vitest';
import { createRecallCache } from '../src/queries/recall/cache.js';

describe('the recall cache', () => {
  it('keeps at most its bound, the oldest going first', async () => {
    const cache = createRecallCache<number>(45_000, 3);
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) await cache.getOrCompute(key, 1000 + i, async () => i);
    expect(cache.stats().size).toBe(3);
    expect((await cache.getOrCompute('d', 1010, async () => -1)).hit).toBe(true);
    expect((await cache.getOrCompute('a', 1010, async () => -1)).value).toBe(-1);
  });

  it('drops what expired when a newer answer is stored, though nobody asks for it again', async () => {
    const cache = createRecallCache<number>(100, 1_000);
    for (let i = 0; i < 50; i += 1) await cache.getOrCompute(`q${i}`, i, async () => i);
    expect(cache.stats().size).toBe(50);
    await cache.getOrCompute('later', 149, async () => 0);
    // q0..q49 were stored at 0..49: those at 49 or before are 100 ms old at 149.
    expect(cache.stats().size).toBe(1);
    expect((await cache.getOrCompute('later', 150, async () => 1)).hit).toBe(true);
  });
});
