import type { RecordedEvent } from '../../events/log/event-log.js';

/** One message as the session recorded it. */
export interface ReplayMessage {
  readonly position: bigint;
  readonly messageId: string;
  readonly index: number;
  readonly role: string;
  readonly sender: string | null;
  readonly content: string;
  readonly sentAt: string;
}

export interface ReplayRecall {
  readonly position: bigint;
  readonly messageId: string;
  readonly memoryIds: readonly string[];
  readonly scores: readonly number[];
  readonly injectedChars: number;
  readonly error: string | null;
}

export interface ReplaySummary {
  readonly position: bigint;
  readonly taskId: string;
  readonly status: 'scheduled' | 'committed' | 'compensated' | 'failed';
  readonly memoryIds: readonly string[];
  /** Messages covered (scheduled), reason (compensated) or error (failed). */
  readonly detail: string | null;
}

/** What one turn did, in log order. */
export interface ReplayTurn {
  /** 1 for the first user message; 0 holds what came before it. */
  readonly turn: number;
  readonly fromPosition: bigint;
  toPosition: bigint;
  readonly messages: ReplayMessage[];
  readonly recalls: ReplayRecall[];
  readonly summaries: ReplaySummary[];
  readonly written: { position: bigint; memoryId: string; text: string }[];
  readonly forgotten: { position: bigint; memoryId: string; reason: string }[];
  /** Messages rolled back (by the host or a reset), with the reason. */
  readonly rolledBack: { position: bigint; messageIds: readonly string[]; reason: string; reset: boolean }[];
  readonly cleaned: { position: bigint; messageId: string }[];
}

const emptyTurn = (turn: number, position: bigint): ReplayTurn => ({
  turn, fromPosition: position, toPosition: position, messages: [], recalls: [], summaries: [], written: [], forgotten: [], rolledBack: [], cleaned: [],
});

/** Adds one event to the turn it happened in. */
function addTo(turn: ReplayTurn, e: RecordedEvent, resetMessages: () => string[]): void {
  const position = e.globalPosition;
  const summary = (status: ReplaySummary['status'], taskId: string, memoryIds: readonly string[], detail: string | null): void => {
    turn.summaries.push({ position, taskId, status, memoryIds, detail });
  };
  switch (e.type) {
    case 'MessageRecorded':
      turn.messages.push({
        position, messageId: e.data.messageId, index: e.data.index, role: e.data.role,
        sender: e.data.senderName ?? e.data.senderId, content: e.data.content, sentAt: e.data.sentAt,
      });
      return;
    case 'MemoriesRecalled':
      turn.recalls.push({ position, ...e.data });
      return;
    case 'SummaryScheduled':
      return summary('scheduled', e.data.taskId, [], `messages ${e.data.fromIndex}-${e.data.toIndex}`);
    case 'SummaryCommitted':
      return summary('committed', e.data.taskId, e.data.memoryIds, null);
    case 'SummaryCompensated':
      return summary('compensated', e.data.taskId, e.data.memoryIds, e.data.reason);
    case 'SummaryFailed':
      return summary('failed', e.data.taskId, [], e.data.error);
    case 'MemoryWritten':
      turn.written.push({ position, memoryId: e.data.memoryId, text: e.data.text });
      return;
    case 'MemoryForgotten':
      turn.forgotten.push({ position, memoryId: e.data.memoryId, reason: e.data.reason });
      return;
    case 'MessagesRolledBack':
      turn.rolledBack.push({ position, messageIds: e.data.messageIds, reason: e.data.reason, reset: false });
      return;
    case 'SessionReset':
      turn.rolledBack.push({ position, messageIds: resetMessages(), reason: e.data.reason, reset: true });
      return;
    case 'MessageCleaned':
      turn.cleaned.push({ position, messageId: e.data.messageId });
      return;
    default:
      // Other events on a memory's stream (updates, access, atoms) are the memory's own history.
      return;
  }
}

/**
 * Groups a session's events into turns: a turn opens with a user message and holds everything
 * logged until the next one (the reply, the recall, background summaries that ended meanwhile,
 * a rollback the host asked for before its next message).
 */
export function groupTurns(events: readonly RecordedEvent[]): ReplayTurn[] {
  const turns: ReplayTurn[] = [];
  const live = new Set<string>();
  let userMessages = 0;
  let current: ReplayTurn | undefined;
  for (const e of events) {
    const opens = e.type === 'MessageRecorded' && e.data.role === 'user';
    if (opens) userMessages += 1;
    if (opens || !current) {
      current = emptyTurn(userMessages, e.globalPosition);
      turns.push(current);
    }
    if (e.type === 'MessageRecorded') live.add(e.data.messageId);
    if (e.type === 'MessagesRolledBack') e.data.messageIds.forEach((id) => live.delete(id));
    addTo(current, e, () => {
      const ids = [...live];
      live.clear();
      return ids;
    });
    current.toPosition = e.globalPosition;
  }
  return turns;
}
