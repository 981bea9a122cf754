import { z } from 'zod';
import { atomEvents } from './atom.js';
import { conversationEvents } from './conversation.js';
import { erasureEvents } from './erasure.js';
import { graphEvents } from './graph.js';
import { memoryEvents } from './memory.js';
import { recallEvents } from './recall.js';
import { storeEvents } from './store.js';
import { systemEvents } from './system.js';
import { transferEvents } from './transfer.js';

const allEvents = [
  ...memoryEvents, ...conversationEvents, ...atomEvents, ...graphEvents, ...systemEvents, ...transferEvents, ...erasureEvents, ...recallEvents, ...storeEvents,
] as const;

/** Every event of the system at its current schema version, discriminated on `type`. */
export const domainEventSchema = z.discriminatedUnion('type', allEvents);

export type DomainEvent = z.infer<typeof domainEventSchema>;
export type EventType = DomainEvent['type'];
export type EventOf<T extends EventType> = Extract<DomainEvent, { type: T }>;
export type EventData<T extends EventType> = EventOf<T>['data'];

/** The schema version each event type is written at today. */
export const currentVersions: ReadonlyMap<string, number> = new Map(
  allEvents.map((schema) => [schema.shape.type.value, schema.shape.schemaVersion.value]),
);

export const eventTypes: readonly EventType[] = [...currentVersions.keys()] as EventType[];

export function isEventType(type: string): type is EventType {
  return currentVersions.has(type);
}
