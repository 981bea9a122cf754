import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readModelLag } from '../src/engine/lag.js';
import { streams } from '../src/events/streams.js';
import { memoryEvents } from './support/events.js';
import { openTestStore, type TestStore } from './support/store.js';

// The lag count reads at most 1,000 events from the lowest checkpoint; a model ahead of that
// page must still be counted, and told capped only when its count is not whole.
describe('read model lag on a real SQLite log', () => {
  let store: TestStore;
  beforeEach(async () => {
    store = openTestStore();
    for (let i = 0; i < 6; i += 1) await store.log.append(streams.memory(`m${i}`), memoryEvents(`m${i}`, 400));
  });
  afterEach(() => store.close());

  it('counts each model from its own checkpoint, capped only where more events are left uncounted', async () => {
    expect(await store.log.headPosition()).toBe(2400n);
    const [behind, middle, ahead, caughtUp] = await readModelLag(store.log, [0n, 500n, 1900n, 2400n], new Date());
    expect(behind).toMatchObject({ events: 1000, capped: true });
    expect(middle).toMatchObject({ events: 1000, capped: true });
    expect(ahead).toMatchObject({ events: 500, capped: false });
    expect(caughtUp).toMatchObject({ events: 0, capped: false, ms: 0 });
  });
});
