import { eventLogContract } from './support/event-log-contract.js';
import { eventStoreTarget, eventStoreUnderTest } from './support/eventstore-log.js';

// The EventLog contract through the real @eventstore/db-client over real gRPC: against the TEST
// STAND-IN on 127.0.0.1, or a real EventStoreDB/KurrentDB when EVENTSTORE_URL is set (README).
const factory = (options: Parameters<typeof eventStoreUnderTest>[0]) => async () => {
  const target = await eventStoreUnderTest(options);
  return { log: await target.open(), cleanup: () => target.cleanup() };
};

// System records every few appends: the log must skip what is not an engine event.
eventLogContract(`EventStoreDB (${eventStoreTarget}, BatchAppend)`, factory({ systemNoiseEvery: 2 }), { densePositions: false, concurrencyRuns: 50 });
eventLogContract(`EventStoreDB (${eventStoreTarget}, Append)`, factory({ batchAppend: false }), { densePositions: false, concurrencyRuns: 25 });
