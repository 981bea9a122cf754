import { describe, expect, it } from 'vitest';
import { polled, type Progress } from '../src/interfaces/http/jobs.js';

describe('job progress polled from the engine', () => {
  it('copies what the source reads into the job while the work runs, and stops after', async () => {
    const seen: Progress[] = [];
    let done = 3;
    let finish: () => void = () => undefined;
    const work = new Promise<string>((resolve) => (finish = () => resolve('ok')));
    const result = await polled((p) => { seen.push(p); if (seen.length === 2) finish(); }, 'writing', () => ({ done: (done += 1), total: 10 }), () => work);
    expect(result).toBe('ok');
    expect(seen).toEqual([{ done: 4, total: 10, step: 'writing' }, { done: 5, total: 10, step: 'writing' }]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(seen).toHaveLength(2);
  });

  it('skips reads that cannot tell or fail, and never reports more done than total', async () => {
    const seen: Progress[] = [];
    const reads = [null, 'throw', { done: 12, total: 10 }] as const;
    let i = 0;
    let finish: () => void = () => undefined;
    const work = new Promise<void>((resolve) => (finish = resolve));
    await polled((p) => { seen.push(p); finish(); }, 'x', () => {
      const r = reads[Math.min(i++, reads.length - 1)];
      if (r === 'throw') throw new Error('table swapped');
      return r ?? null;
    }, () => work);
    expect(seen).toEqual([{ done: 10, total: 10, step: 'x' }]);
  });
});
