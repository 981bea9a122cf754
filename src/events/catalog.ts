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

/** Each event type's schema, built on its first use (define.ts). */
export type EventSchema = ReturnType<(typeof allEvents)[number]['schema']>;

type Members = readonly [EventSchema, ...EventSchema[]];
let union: z.ZodDiscriminatedUnion<Members, 'type'> | undefined;

/** Every event of the system at its current schema version, discriminated on `type`: every type's schema, built at the first call. */
export function eventUnion(): z.ZodDiscriminatedUnion<Members, 'type'> {
  return (union ??= z.discriminatedUnion('type', allEvents.map((event) => event.schema()) as unknown as Members));
}

/** The union as one schema (for the library's users); it builds the union at its first parse. */
export const domainEventSchema = z.lazy(eventUnion);

export type DomainEvent = z.infer<EventSchema>;
export type EventType = DomainEvent['type'];
export type EventOf<T extends EventType> = Extract<DomainEvent, { type: T }>;
export type EventData<T extends EventType> = EventOf<T>['data'];

/** The schema version each event type is written at today. */
export const currentVersions: ReadonlyMap<string, number> = new Map(allEvents.map((event) => [event.type, event.schemaVersion]));

const byType: ReadonlyMap<string, (typeof allEvents)[number]> = new Map(allEvents.map((event) => [event.type, event]));

/** The schema of one event type (built at its first use), or undefined for a type the catalog lacks. */
export function eventSchemaOf(type: string): EventSchema | undefined {
  return byType.get(type)?.schema();
}

export const eventTypes: readonly EventType[] = [...currentVersions.keys()] as EventType[];

export function isEventType(type: string): type is EventType {
  return currentVersions.has(type);
}
