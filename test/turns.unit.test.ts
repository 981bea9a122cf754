import { describe, expect, it } from 'vitest';
import { passShareMs, turn } from '../src/projections/turns.js';

const busy = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('paced work shares one budget per pass of the event loop (issue 17)', () => {
  it('given six paced tasks at once, then a timer sees at most the share of their slices between two of its calls', async () => {
    const slice = passShareMs * 0.6;
    let since = 0;
    let most = 0;
    let ticking = true;
    const tick = (): void => {
      most = Math.max(most, since);
      since = 0;
      if (ticking) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    const task = async (): Promise<void> => {
      for (let i = 0; i < 12; i += 1) {
        await turn();
        busy(slice);
        since += 1;
      }
    };
    await Promise.all([task(), task(), task(), task(), task(), task()]);
    ticking = false;
    // Each slice takes 0.6 of the share: a second one fills it, a third waits for a later pass.
    // Without the shared budget all six tasks' slices ran in every pass.
    expect(most).toBeLessThanOrEqual(2);
    expect(most).toBeGreaterThanOrEqual(1);
  });

  it('given one task alone, then it never waits for a timer it does not need: its slices follow each other', async () => {
    let passes = 0;
    const counting = setInterval(() => (passes += 1), 0);
    const started = performance.now();
    for (let i = 0; i < 20; i += 1) {
      await turn();
      busy(passShareMs * 1.5);
    }
    clearInterval(counting);
    // Twenty slices over the share each: one pass each at most, never a wait beyond the pass.
    expect(passes).toBeLessThanOrEqual(21);
    expect(performance.now() - started).toBeGreaterThanOrEqual(20 * passShareMs * 1.5);
  });
});
