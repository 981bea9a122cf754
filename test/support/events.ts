import fc from 'fast-check';
import type { DomainEvent, EventOf } from '../../src/events/catalog.js';
import type { EventMetadata } from '../../src/events/metadata.js';

/** Counts the events made by these helpers, so ids and times are unique and reproducible (no clock). */
let counter = 0;

const baseTime = Date.UTC(2026, 0, 1);

/** A fixed ISO time `n` seconds after 2026-01-01T00:00:00Z. */
export function testTime(n: number): string {
  return new Date(baseTime + n * 1000).toISOString();
}

/** A fresh event id, unique within this process. */
export function nextEventId(prefix = 'evt'): string {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** Metadata with a fresh id; `occurredAt` is derived from the counter unless given. */
export function testEventMetadata(overrides: Partial<EventMetadata> = {}): EventMetadata {
  const eventId = overrides.eventId ?? nextEventId();
  return {
    eventId,
    occurredAt: testTime(counter),
    correlationId: eventId,
    causationId: eventId,
    actor: 'test',
    ...overrides,
  };
}

export type MemoryWrittenData = EventOf<'MemoryWritten'>['data'];

export interface MemoryWrittenOptions extends Partial<Omit<MemoryWrittenData, 'memoryId' | 'text'>> {
  readonly metadata?: Partial<EventMetadata>;
}

/** A valid MemoryWritten event at the current schema version (give an invalid field to make it invalid). */
export function memoryWrittenEvent(memoryId: string, text: string, opts: MemoryWrittenOptions = {}): EventOf<'MemoryWritten'> {
  const { metadata, ...data } = opts;
  return {
    type: 'MemoryWritten',
    schemaVersion: 2,
    data: {
      memoryId,
      text,
      importance: 0.5,
      sessionId: null,
      personaId: null,
      userId: null,
      topics: [],
      keyFacts: [],
      participants: [],
      sentiment: null,
      sources: [],
      ...data,
    },
    metadata: testEventMetadata(metadata),
  };
}

/** A valid MemoryRestored event, the smallest event of the catalog. */
export function memoryRestoredEvent(memoryId: string, metadata: Partial<EventMetadata> = {}): EventOf<'MemoryRestored'> {
  return { type: 'MemoryRestored', schemaVersion: 1, data: { memoryId }, metadata: testEventMetadata(metadata) };
}

/** `count` valid MemoryWritten events for one memory, each with a fresh id. */
export function memoryEvents(memoryId: string, count: number): DomainEvent[] {
  return Array.from({ length: count }, (_, i) => memoryWrittenEvent(memoryId, `text ${i} of ${memoryId}`));
}

const label = fc.string({ minLength: 1, maxLength: 12 });

/** Random valid MemoryWritten events; every generated value gets a fresh event id. */
export const arbitraryMemoryEvent: fc.Arbitrary<DomainEvent> = fc
  .record({
    memoryId: fc.string({ minLength: 1, maxLength: 20 }),
    text: fc.oneof(
      fc.string({ minLength: 1, maxLength: 60 }).filter((s) => s.trim().length > 0),
      fc.constantFrom('记忆系统', 'Alice likes tea', '南京市长江大桥'),
    ),
    importance: fc.double({ min: 0, max: 1, noNaN: true }),
    sessionId: fc.option(label, { nil: null }),
    topics: fc.array(label, { maxLength: 3 }),
  })
  .map(({ memoryId, text, ...rest }) => memoryWrittenEvent(memoryId, text, rest));
