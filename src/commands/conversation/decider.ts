import type { Decider, EventBody } from '../decider.js';
import { DomainError } from '../errors.js';
import { assertNever } from '../memory/state.js';
import type { ConversationCommand, HostMessage, ReconcileHistory } from './commands.js';
import { evolveConversation, initialConversationState, type CommittedSummary, type ConversationEvent, type ConversationState } from './state.js';

type Body = EventBody<ConversationEvent>;

/** Rules of one conversation: messages in order, rollbacks that take their summaries with them, revision-checked commits. */
export function decideConversation(command: ConversationCommand, state: ConversationState): Body[] {
  const { sessionId } = command.data;
  switch (command.type) {
    case 'RecordMessage': {
      const { sessionId: _s, ...message } = command.data;
      const last = state.messages.at(-1);
      // The host retried the same turn: recorded once.
      if (last?.messageId === message.messageId && last.content === message.content && last.role === message.role) return [];
      if (state.messages.some((m) => m.messageId === message.messageId)) {
        throw new DomainError('message_exists', `message ${message.messageId} is already in session ${sessionId}`);
      }
      return [{ type: 'MessageRecorded', schemaVersion: 2, data: { sessionId, ...message, index: state.messages.length } }];
    }
    case 'ReconcileHistory':
      return rollBackTo(state, sessionId, keptCount(command, state), command.data.reason);
    case 'ResetSession':
      return [
        { type: 'SessionReset', schemaVersion: 1, data: { sessionId, sessionRevision: state.revision + 1, reason: command.data.reason } },
        ...compensations(sessionId, state.summaries, command.data.reason),
      ];
    case 'ScheduleSummary': {
      const { taskId, fromIndex, toIndex, sessionRevision } = command.data;
      if (state.pending) throw new DomainError('summary_pending', `session ${sessionId} already runs summary ${state.pending.taskId}`);
      requireRevision(state, sessionRevision);
      if (fromIndex !== state.lastSummarizedIndex || toIndex <= fromIndex || toIndex > state.messages.length) {
        throw new DomainError('summary_window', `window [${fromIndex}, ${toIndex}) does not start at the cursor or exceeds the messages`);
      }
      return [{ type: 'SummaryScheduled', schemaVersion: 1, data: { sessionId, taskId, fromIndex, toIndex, sessionRevision } }];
    }
    case 'CommitSummary': {
      const { taskId, memoryIds, sessionRevision } = command.data;
      requireRevision(state, sessionRevision);
      if (state.pending?.taskId !== taskId) throw new DomainError('summary_not_pending', `summary ${taskId} is not running in session ${sessionId}`);
      // Never past the messages, never backwards.
      const lastSummarizedIndex = Math.min(command.data.lastSummarizedIndex, state.messages.length);
      if (lastSummarizedIndex <= state.lastSummarizedIndex) throw new DomainError('summary_window', `cursor ${lastSummarizedIndex} does not move forward`);
      return [{ type: 'SummaryCommitted', schemaVersion: 1, data: { sessionId, taskId, memoryIds: [...memoryIds], lastSummarizedIndex, sessionRevision } }];
    }
    case 'CompensateSummary': {
      const { taskId, memoryIds, reason } = command.data;
      if (memoryIds.length === 0 && state.pending?.taskId !== taskId) return [];
      return [{ type: 'SummaryCompensated', schemaVersion: 1, data: { sessionId, taskId, memoryIds: [...memoryIds], reason } }];
    }
    case 'FailSummary':
      if (state.pending?.taskId !== command.data.taskId) return [];
      return [{ type: 'SummaryFailed', schemaVersion: 1, data: { sessionId, taskId: command.data.taskId, error: command.data.error.slice(0, 2000) || 'failed' } }];
    case 'CleanMessage': {
      const message = state.messages.find((m) => m.messageId === command.data.messageId);
      if (!message || message.content === command.data.content) return [];
      return [{
        type: 'MessageCleaned', schemaVersion: 2,
        data: { sessionId, messageId: message.messageId, index: message.index, senderId: message.senderId, userId: message.userId, content: command.data.content },
      }];
    }
    default:
      return assertNever(command);
  }
}

function requireRevision(state: ConversationState, revision: number): void {
  if (revision !== state.revision) {
    throw new DomainError('stale_revision', `session revision is ${state.revision}, the summary read ${revision}`);
  }
}

/** How many stored messages the host still has. */
function keptCount(command: ReconcileHistory, state: ConversationState): number {
  const { checkpointId, history } = command.data;
  let kept = state.messages.length;
  if (checkpointId === null) kept = 0;
  else if (checkpointId !== undefined) {
    const at = state.messages.findIndex((m) => m.messageId === checkpointId);
    if (at < 0) throw new DomainError('unknown_checkpoint', `checkpointId ${checkpointId} is not a message of session ${command.data.sessionId}`);
    kept = at + 1;
  }
  if (history) kept = Math.min(kept, commonPrefix(state, history));
  return kept;
}

// System prompts live in the host's history but are never recorded: they take no part in the match.
function commonPrefix(state: ConversationState, history: readonly HostMessage[]): number {
  const host = history.filter((m) => m.role !== 'system');
  let n = 0;
  while (n < state.messages.length && n < host.length) {
    const stored = state.messages[n];
    const theirs = host[n];
    if (!stored || !theirs) break;
    const same = theirs.messageId !== undefined ? theirs.messageId === stored.messageId : theirs.role === stored.role && theirs.content.trim() === stored.content.trim();
    if (!same) break;
    n += 1;
  }
  return n;
}

function rollBackTo(state: ConversationState, sessionId: string, kept: number, reason: string): Body[] {
  const removed = state.messages.slice(kept);
  if (removed.length === 0) return [];
  // A summary that read a removed message goes, and the cursor returns to where it started.
  const invalid = state.summaries.filter((s) => s.toIndex > kept);
  const cursor = Math.min(invalid[0]?.fromIndex ?? state.lastSummarizedIndex, kept);
  return [
    {
      type: 'MessagesRolledBack',
      schemaVersion: 1,
      data: { sessionId, fromIndex: kept, messageIds: removed.map((m) => m.messageId), sessionRevision: state.revision + 1, lastSummarizedIndex: cursor, reason },
    },
    ...compensations(sessionId, invalid, reason),
  ];
}

function compensations(sessionId: string, summaries: readonly CommittedSummary[], reason: string): Body[] {
  const byTask = new Map<string, string[]>();
  for (const s of summaries) byTask.set(s.taskId, [...(byTask.get(s.taskId) ?? []), ...s.memoryIds]);
  return [...byTask].map(([taskId, memoryIds]) => ({ type: 'SummaryCompensated', schemaVersion: 1, data: { sessionId, taskId, memoryIds, reason } }));
}

export const conversationDecider: Decider<ConversationCommand, ConversationEvent, ConversationState> = {
  initialState: initialConversationState,
  evolve: evolveConversation,
  decide: decideConversation,
};
