import { expect } from 'vitest';
import { stampEvents, type Command, type CommandMetadata, type Decider, type EventBody } from '../../src/commands/decider.js';
import type { DomainEvent } from '../../src/events/catalog.js';

export const testMetadata = (n = 0): CommandMetadata => ({
  commandId: `cmd-${n}`,
  now: `2026-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`,
  actor: 'test',
});

/** given(events).when(command).then(events) for a decider, so a test reads like the rule it checks. */
export function deciderSpec<C extends Command, E extends DomainEvent, S>(decider: Decider<C, E, S>) {
  return {
    given(history: readonly EventBody<E>[]) {
      const state = stampEvents<E>(history, testMetadata()).reduce(decider.evolve, decider.initialState());
      return {
        when(command: C) {
          const decide = () => decider.decide(command, state);
          return {
            then(expected: readonly EventBody<E>[]): void {
              expect(decide()).toEqual(expected);
            },
            thenThrows(errorClass: new (...args: never[]) => Error, message?: RegExp): void {
              expect(decide).toThrow(errorClass);
              if (message) expect(decide).toThrow(message);
            },
          };
        },
      };
    },
  };
}
