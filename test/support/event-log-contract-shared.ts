import { afterEach, beforeEach } from 'vitest';
import type { DomainEvent } from '../../src/events/catalog.js';
import type { EventLog, RecordedEvent } from '../../src/events/log/event-log.js';

export interface EventLogUnderTest {
  readonly log: EventLog;
  readonly cleanup: () => Promise<void>;
}

export type EventLogFactory = () => Promise<EventLogUnderTest>;

/** A fresh log for each test of the enclosing describe; call inside a describe. */
export function useFreshLog(factory: EventLogFactory): () => EventLog {
  let current: EventLogUnderTest | undefined;
  beforeEach(async () => {
    current = await factory();
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('no log: useFreshLog must be called inside a describe');
    return current.log;
  };
}

/** What a reader gets back for `event` stored at this place. */
export const recorded = (event: DomainEvent, streamId: string, streamRevision: bigint, globalPosition: bigint): RecordedEvent => ({
  ...event,
  streamId,
  streamRevision,
  globalPosition,
});

/** Everything a reader can see of the log, to compare before and after a refused append. */
export async function snapshot(log: EventLog, streamId: string) {
  return { head: await log.headPosition(), all: await log.readAll(), stream: await log.readStream(streamId) };
}
