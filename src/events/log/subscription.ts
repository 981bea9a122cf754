// A deep import: the package root loads every operator (about 100 ms of every CLI start).
import { Observable } from 'rxjs/internal/Observable';
import type { RecordedEvent } from './event-log.js';

export interface PollingSource {
  readPage(from: bigint, limit: number): Promise<RecordedEvent[]>;
  /** Resolves at the next append seen by this process, or after the poll interval. */
  nextWake(): Promise<void>;
}

/** Catch-up then live, for stores without native subscriptions: read pages until short, then wait. */
export function pollingSubscription(source: PollingSource, from: bigint, pageSize = 1000): Observable<RecordedEvent> {
  return new Observable<RecordedEvent>((subscriber) => {
    let next = from;
    let stopped = false;
    const run = async (): Promise<void> => {
      while (!stopped) {
        const wake = source.nextWake();
        const page = await source.readPage(next, pageSize);
        for (const event of page) {
          if (stopped) return;
          subscriber.next(event);
          next = event.globalPosition + 1n;
        }
        if (page.length < pageSize) await wake;
      }
    };
    run().catch((error: unknown) => subscriber.error(error));
    return () => {
      stopped = true;
    };
  });
}
