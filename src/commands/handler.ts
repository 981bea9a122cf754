import type { DomainEvent } from '../events/catalog.js';
import { ConcurrencyError } from '../events/errors.js';
import type { EventLog, ExpectedRevision } from '../events/log/event-log.js';
import { stampEvents, type Command, type Decider } from './decider.js';

export interface HandleResult<E extends DomainEvent> {
  readonly events: E[];
  readonly nextExpectedRevision: bigint | null;
  readonly lastPosition: bigint | null;
}

/**
 * Loads the stream's state, decides, appends with the revision it read, and starts over when
 * another writer got there first. `onCommitted` is the log's hook of the append that commits.
 */
export async function handleCommand<C extends Command, E extends DomainEvent, S>(
  log: EventLog,
  decider: Decider<C, E, S>,
  streamId: string,
  command: C,
  options: { readonly maxAttempts?: number; readonly onCommitted?: () => void } = {},
): Promise<HandleResult<E>> {
  const maxAttempts = options.maxAttempts ?? 5;
  for (let attempt = 1; ; attempt += 1) {
    const recorded = await log.readStream(streamId);
    const state = recorded.reduce((s, e) => decider.evolve(s, e as unknown as E), decider.initialState());
    const last = recorded.at(-1);
    const expectedRevision: ExpectedRevision = last ? last.streamRevision : 'no_stream';
    const events = stampEvents<E>(decider.decide(command, state), command.metadata);
    if (events.length === 0) return { events, nextExpectedRevision: last?.streamRevision ?? null, lastPosition: null };
    try {
      const result = await log.append(streamId, events, { expectedRevision, onCommitted: options.onCommitted });
      return { events, ...result };
    } catch (error) {
      if (!(error instanceof ConcurrencyError) || attempt >= maxAttempts) throw error;
    }
  }
}
