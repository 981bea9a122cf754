import type { DomainEvent } from '../events/catalog.js';

/** An event as a decider produces it: the metadata is stamped by the handler from the command. */
export type EventBody<E extends DomainEvent = DomainEvent> = E extends DomainEvent ? Omit<E, 'metadata'> : never;

/** Given by the caller of a command; nothing below reads a clock or makes an id. */
export interface CommandMetadata {
  readonly commandId: string;
  /** ISO-8601 time at which the command happens. */
  readonly now: string;
  readonly actor: string;
  readonly correlationId?: string;
  readonly causationId?: string;
}

export interface Command<T extends string = string, D = unknown> {
  readonly type: T;
  readonly data: D;
  readonly metadata: CommandMetadata;
}

/** Pure domain logic of one stream. */
export interface Decider<C extends Command, E extends DomainEvent, S> {
  readonly initialState: () => S;
  readonly evolve: (state: S, event: E) => S;
  readonly decide: (command: C, state: S) => EventBody<E>[];
}

export function stampEvents<E extends DomainEvent>(bodies: readonly EventBody<E>[], meta: CommandMetadata): E[] {
  return bodies.map(
    (body, index) =>
      ({
        ...body,
        metadata: {
          eventId: bodies.length === 1 ? meta.commandId : `${meta.commandId}.${index}`,
          occurredAt: meta.now,
          correlationId: meta.correlationId ?? meta.commandId,
          causationId: meta.causationId ?? meta.commandId,
          actor: meta.actor,
        },
      }) as unknown as E,
  );
}
