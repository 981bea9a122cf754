import type { SubjectRef } from './sealing/keystore.js';

/**
 * Where the engine's data lives in an EventStoreDB that other applications may share (ADR 27):
 * each engine stream under `<namespace>:`, subject keys and the log's anchors under
 * `<namespace>-keys:` and `<namespace>-meta:`, so a stream-name prefix tells them apart and a
 * filter on `<namespace>:` sees only domain events.
 */
export function eventStoreNames(namespace: string) {
  const events = `${namespace}:`;
  const keys = `${namespace}-keys:`;
  return {
    namespace,
    eventPrefix: events,
    /** The EventStoreDB stream of an engine stream. */
    stream: (streamId: string): string => `${events}${streamId}`,
    /** The engine stream of an EventStoreDB stream, or null when it is not one of ours. */
    engineStream: (name: string): string | null => (name.startsWith(events) ? name.slice(events.length) : null),
    /** One key per stream: a hard delete (tombstone) and a scavenge destroy it. */
    key: (keyId: number): string => `${keys}key-${keyId}`,
    /** Which keys a subject has had, in order (no key material). */
    subject: (subject: SubjectRef): string => `${keys}subject-${subject.kind}-${subject.id}`,
    /** The log's anchors: digests of $all up to a position (ADR 27). */
    anchors: `${namespace}-meta:anchors`,
  };
}

export type EventStoreNames = ReturnType<typeof eventStoreNames>;
