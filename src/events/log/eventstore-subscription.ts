import { START, streamNameFilter, type EventStoreDBClient } from '@eventstore/db-client';
import { Observable } from 'rxjs';
import { CorruptEventError, ValidationError } from '../errors.js';
import { at, collect, isInvalidPosition, toRecord } from './eventstore-client.js';
import type { EventStoreNames } from './eventstore-names.js';
import type { EventStoreReads } from './eventstore-reads.js';
import type { RecordedEvent } from './event-log.js';

export interface SubscriptionOptions {
  /** First wait before subscribing again after the connection dropped; doubles up to `maxRetryMs`. */
  readonly retryMs?: number;
  readonly maxRetryMs?: number;
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
/** Our own errors end the subscription; anything from the connection is retried. */
const isFinal = (error: unknown): boolean => error instanceof CorruptEventError || error instanceof ValidationError || isInvalidPosition(error);

/**
 * `subscribe({ from })` over `subscribeToAll` (ADR 27): the server catches up then goes live, filtered
 * server-side to the engine's stream prefix. A subscription starts after a position (exclusive),
 * the EventLog's `from` is inclusive: from P - 1 when that is an event, else the event at P first and
 * then from P. After a dropped connection it subscribes again from the last event it delivered.
 */
export function eventStoreSubscription(
  client: EventStoreDBClient,
  names: EventStoreNames,
  reads: EventStoreReads,
  from: bigint,
  options: SubscriptionOptions = {},
): Observable<RecordedEvent> {
  return new Observable<RecordedEvent>((subscriber) => {
    let stopped = false;
    let current: { unsubscribe(): Promise<void> } | undefined;
    const emit = (event: RecordedEvent): void => {
      if (!stopped) subscriber.next(event);
    };

    const startAfter = async (): Promise<bigint | 'start'> => {
      if (from <= 1n) return 'start';
      try {
        await collect(client.readAll({ fromPosition: at(from - 1n), maxCount: 1 }));
        return from - 1n;
      } catch (error) {
        if (!isInvalidPosition(error)) throw error;
      }
      for (const event of await reads.decode(await reads.readRecords({ from, to: from, limit: 1 }))) emit(event);
      return from;
    };

    const run = async (): Promise<void> => {
      let after = await startAfter();
      let delay = options.retryMs ?? 50;
      while (!stopped) {
        const subscription = client.subscribeToAll({
          fromPosition: after === 'start' ? START : at(after),
          filter: streamNameFilter({ prefixes: [names.eventPrefix] }),
        });
        current = subscription;
        try {
          for await (const resolved of subscription) {
            if (stopped) break;
            const record = toRecord(resolved);
            if (!record || !reads.ours(record) || (after !== 'start' && record.position <= after)) continue;
            const [event] = await reads.decode([record]);
            if (event) emit(event);
            after = record.position;
            delay = options.retryMs ?? 50;
          }
        } catch (error) {
          if (stopped) return;
          if (isFinal(error)) throw error;
        }
        if (stopped) return;
        await wait(delay);
        delay = Math.min(delay * 2, options.maxRetryMs ?? 2000);
      }
    };
    run().catch((error: unknown) => {
      if (!stopped) subscriber.error(error);
    });
    return () => {
      stopped = true;
      void current?.unsubscribe().catch(() => undefined);
    };
  });
}
