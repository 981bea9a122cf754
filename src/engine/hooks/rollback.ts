import type { ReconcileHistory, ResetSession } from '../../commands/conversation/commands.js';
import type { ConversationEvent } from '../../commands/conversation/state.js';
import type { ConversationStore } from '../conversation/store.js';
import type { MemoryWriter } from '../summarize/task.js';

/**
 * A rollback or a reset under the store write lock: the memories of the summaries it invalidates
 * are forgotten first, then the rollback and its compensations are appended. Done in this order, a
 * crash in between leaves forgotten memories and messages still there (the next turn rolls them
 * back again), never a live memory built from a message that no longer exists.
 */
export async function rollBack(store: ConversationStore, memories: MemoryWriter, command: ReconcileHistory | ResetSession): Promise<ConversationEvent[]> {
  return store.withWriteLock(async () => {
    const planned = await store.preview(command);
    for (const body of planned) {
      if (body.type !== 'SummaryCompensated') continue;
      for (const memoryId of body.data.memoryIds) await memories.forget(memoryId, `summary compensated: ${body.data.reason}`.slice(0, 500));
    }
    return store.handle(command);
  });
}

/** How many messages the events rolled back. */
export const rolledBackCount = (events: readonly ConversationEvent[]): number =>
  events.reduce((n, e) => n + (e.type === 'MessagesRolledBack' ? e.data.messageIds.length : 0), 0);
