import { randomUUID } from 'node:crypto';
import { openEventStoreDbEventLog, type EventStoreDbEventLog } from '../../src/events/log/eventstore-event-log.js';
import { startEventStoreStandIn, type EventStoreStandIn, type StandInOptions } from './esdb-stand-in/server.js';

/**
 * Where the EventStoreDB suites run: a real EventStoreDB/KurrentDB when EVENTSTORE_URL is set
 * (e.g. `esdb://127.0.0.1:2113?tls=false`), else the in-memory TEST STAND-IN on 127.0.0.1. Each
 * log gets its own namespace, so runs against one real server never see each other's events.
 */
export const realEventStoreUrl: string | undefined = process.env.EVENTSTORE_URL;
export const eventStoreTarget = realEventStoreUrl ? `real server at ${realEventStoreUrl}` : 'test stand-in';

export interface EventStoreUnderTest {
  readonly url: string;
  readonly namespace: string;
  /** The stand-in, when the suite runs on it (tests that tamper or drop connections need it). */
  readonly standIn: EventStoreStandIn | null;
  open(): Promise<EventStoreDbEventLog>;
  cleanup(): Promise<void>;
}

/**
 * A fresh server (stand-in) or a fresh namespace (real server), and logs opened on it;
 * `realServer: false` for tests that need the stand-in itself (tampering, dropped connections).
 */
export async function eventStoreUnderTest(options: StandInOptions & { readonly realServer?: boolean } = {}): Promise<EventStoreUnderTest> {
  const real = options.realServer === false ? undefined : realEventStoreUrl;
  const standIn = real ? null : await startEventStoreStandIn(options);
  const url = real ?? (standIn as EventStoreStandIn).url;
  const namespace = `lmtest_${randomUUID().slice(0, 8)}`;
  const logs: EventStoreDbEventLog[] = [];
  return {
    url,
    namespace,
    standIn,
    async open() {
      const log = await openEventStoreDbEventLog({ connectionString: url, namespace, subscription: { retryMs: 20, maxRetryMs: 200 } });
      logs.push(log);
      return log;
    },
    async cleanup() {
      await Promise.all(logs.map((log) => log.close()));
      await standIn?.stop();
    },
  };
}
