import { stampEvents, type EventBody } from '../../commands/decider.js';
import type { ConversationCommand } from '../../commands/conversation/commands.js';
import { conversationDecider } from '../../commands/conversation/decider.js';
import type { ConversationEvent, ConversationState } from '../../commands/conversation/state.js';
import { ConcurrencyError } from '../../events/errors.js';
import type { EventLog } from '../../events/log/event-log.js';
import { streams } from '../../events/streams.js';
import { createSerialExecutor } from '../../projections/vectors/executor.js';

type Body = EventBody<ConversationEvent>;

interface Cached {
  readonly revision: bigint | null;
  readonly state: ConversationState;
}

/**
 * The conversation streams seen through their decider. Each session's state is cached with the
 * stream revision it was folded to, so a turn reads only the events it has not seen (a long
 * conversation is not re-read per message). Two locks: one per session, which serializes a
 * session's turns, and one store write lock, under which a rollback and a summary's
 * revision-checked commit happen one at a time.
 */
export function createConversationStore(log: EventLog) {
  const cache = new Map<string, Cached>();
  const sessionLocks = new Map<string, ReturnType<typeof createSerialExecutor>>();
  const writeLock = createSerialExecutor();

  const load = async (sessionId: string): Promise<Cached> => {
    const cached = cache.get(sessionId) ?? { revision: null, state: conversationDecider.initialState() };
    const fromRevision = cached.revision === null ? 0n : cached.revision + 1n;
    const fresh = await log.readStream(streams.conversation(sessionId), { fromRevision });
    const last = fresh.at(-1);
    if (!last) return cached;
    const state = fresh.reduce((s, e) => conversationDecider.evolve(s, e as unknown as ConversationEvent), cached.state);
    const next = { revision: last.streamRevision, state };
    cache.set(sessionId, next);
    return next;
  };

  return {
    /** The session's state as the log has it now. */
    state: async (sessionId: string): Promise<ConversationState> => (await load(sessionId)).state,
    /** What the command would append now, without appending (to act on it first, e.g. forget memories). */
    preview: async (command: ConversationCommand): Promise<Body[]> =>
      conversationDecider.decide(command, (await load(command.data.sessionId)).state),
    /** Decides and appends with the revision it read; on a conflict it reads the news and decides again. */
    async handle(command: ConversationCommand, maxAttempts = 5): Promise<ConversationEvent[]> {
      const streamId = streams.conversation(command.data.sessionId);
      for (let attempt = 1; ; attempt += 1) {
        const { revision, state } = await load(command.data.sessionId);
        const events = stampEvents<ConversationEvent>(conversationDecider.decide(command, state), command.metadata);
        if (events.length === 0) return events;
        try {
          await log.append(streamId, events, { expectedRevision: revision ?? 'no_stream' });
          return events;
        } catch (error) {
          if (!(error instanceof ConcurrencyError) || attempt >= maxAttempts) throw error;
        }
      }
    },
    /** Runs `work` after every earlier turn of the same session. */
    withSession<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
      let lock = sessionLocks.get(sessionId);
      if (!lock) sessionLocks.set(sessionId, (lock = createSerialExecutor()));
      return lock.run(work);
    },
    /** Drops every cached session state (an erasure: cached messages may hold erased text); the next turn reads the log. */
    forgetCached(): void {
      cache.clear();
    },
    /** Runs `work` alone among rollbacks, resets and summary commits. */
    withWriteLock: <T>(work: () => Promise<T>): Promise<T> => writeLock.run(work),
  };
}

export type ConversationStore = ReturnType<typeof createConversationStore>;
