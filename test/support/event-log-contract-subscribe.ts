import { config, firstValueFrom, take, timeout, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/events/log/event-log.js';
import { useFreshLog, type EventLogFactory } from './event-log-contract-shared.js';
import { memoryEvents } from './events.js';

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Waits until `done()` holds, failing after `ms`. */
async function until(done: () => boolean, ms = 5000): Promise<void> {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > ms) throw new Error(`condition not met within ${ms} ms`);
    await wait(5);
  }
}
const ids = (events: readonly RecordedEvent[]) => events.map((e) => e.metadata.eventId);

export function subscribeContract(factory: EventLogFactory, dense = true): void {
  describe('subscribe', () => {
    const log = useFreshLog(factory);

    it('delivers the stored events first, then live ones appended later, in position order', async () => {
      const stored = [...memoryEvents('a', 2), ...memoryEvents('b', 1)];
      await log().append('a', stored.slice(0, 2));
      await log().append('b', stored.slice(2));
      const received = firstValueFrom(log().subscribe().pipe(take(6), toArray(), timeout(5000)));
      await wait(20);
      const live = [...memoryEvents('a', 1), ...memoryEvents('c', 2)];
      await log().append('a', live.slice(0, 1));
      await log().append('c', live.slice(1));
      const events = await received;
      expect(ids(events)).toEqual(ids(await log().readAll()));
      expect(ids(events)).toEqual([...stored, ...live].map((e) => e.metadata.eventId));
      const positions = events.map((e) => e.globalPosition);
      expect(positions).toEqual((await log().readAll()).map((e) => e.globalPosition));
      if (dense) expect(positions).toEqual(events.map((_, i) => events[0]!.globalPosition + BigInt(i)));
      else expect(positions.every((p, i) => i === 0 || p > positions[i - 1]!)).toBe(true);
    });

    it('delivers live events to a subscriber of an empty log', async () => {
      const received = firstValueFrom(log().subscribe().pipe(take(2), toArray(), timeout(5000)));
      const live = memoryEvents('a', 2);
      await log().append('a', live);
      expect(ids(await received)).toEqual(live.map((e) => e.metadata.eventId));
    });

    it('starts from the given position', async () => {
      await log().append('a', memoryEvents('a', 4));
      const all = await log().readAll();
      const from = all[2]!.globalPosition;
      const events = await firstValueFrom(log().subscribe({ from }).pipe(take(2), toArray(), timeout(5000)));
      expect(events).toEqual(all.slice(2));
    });

    it('stops delivering once unsubscribed, while other subscribers still receive', async () => {
      // rxjs drops an event pushed to a closed subscriber and reports it here: the log must push none.
      // (Only events: firstValueFrom itself completes a closed subscriber after toArray, which is fine.)
      const pushedAfterClose: unknown[] = [];
      const previous = config.onStoppedNotification;
      config.onStoppedNotification = (notification) => {
        if (notification.kind === 'N') pushedAfterClose.push(notification.value);
      };
      try {
        await log().append('a', memoryEvents('a', 1));
        const seen: RecordedEvent[] = [];
        const subscription = log().subscribe().subscribe((event) => seen.push(event));
        await until(() => seen.length === 1);
        subscription.unsubscribe();
        const head = await log().headPosition();
        const other = firstValueFrom(log().subscribe({ from: head + 1n }).pipe(take(2), toArray(), timeout(5000)));
        const later = memoryEvents('a', 2);
        await log().append('a', later);
        expect(ids(await other)).toEqual(later.map((e) => e.metadata.eventId));
        await wait(100);
        expect(seen).toHaveLength(1);
        expect(pushedAfterClose).toEqual([]);
      } finally {
        config.onStoppedNotification = previous;
      }
    });
  });
}
