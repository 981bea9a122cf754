import { describe, it } from 'vitest';
import type { EventBody } from '../src/commands/decider.js';
import { DomainError } from '../src/commands/errors.js';
import type { ConversationCommand } from '../src/commands/conversation/commands.js';
import { conversationDecider } from '../src/commands/conversation/decider.js';
import type { ConversationEvent } from '../src/commands/conversation/state.js';
import { deciderSpec, testMetadata } from './support/decider-spec.js';

type Body = EventBody<ConversationEvent>;
const spec = deciderSpec(conversationDecider);
const metadata = testMetadata(1);
const cmd = (c: Omit<ConversationCommand, 'metadata'>): ConversationCommand => ({ ...c, metadata }) as ConversationCommand;
const sessionId = 's1';
const at = '2026-01-01T10:00:00.000Z';
const message = (index: number, role: 'user' | 'assistant' = index % 2 === 0 ? 'user' : 'assistant'): Body => ({
  type: 'MessageRecorded',
  schemaVersion: 2,
  data: { sessionId, messageId: `m${index}`, index, role, senderId: null, userId: null, senderName: null, content: `text ${index}`, sentAt: at },
});
const messages = (n: number): Body[] => Array.from({ length: n }, (_, i) => message(i));
const scheduled = (taskId: string, fromIndex: number, toIndex: number, sessionRevision = 0): Body => ({
  type: 'SummaryScheduled', schemaVersion: 1, data: { sessionId, taskId, fromIndex, toIndex, sessionRevision },
});
const committed = (taskId: string, memoryIds: string[], lastSummarizedIndex: number, sessionRevision = 0): Body => ({
  type: 'SummaryCommitted', schemaVersion: 1, data: { sessionId, taskId, memoryIds, lastSummarizedIndex, sessionRevision },
});

describe('conversation decider', () => {
  it('records a message at the next index, and a retried turn once', () => {
    const data = { sessionId, messageId: 'm2', role: 'user' as const, senderId: null, userId: null, senderName: null, content: 'text 2', sentAt: at };
    spec.given(messages(2)).when(cmd({ type: 'RecordMessage', data })).then([message(2)]);
    spec.given(messages(3)).when(cmd({ type: 'RecordMessage', data })).then([]);
    spec.given(messages(3)).when(cmd({ type: 'RecordMessage', data: { ...data, messageId: 'm0' } })).thenThrows(DomainError, /already/);
  });

  it('rolls back what the host no longer has, with the summaries that read it, and moves the cursor back', () => {
    const history = [...messages(8), scheduled('t1', 0, 6), committed('t1', ['a'], 4), committed('t1', ['b'], 6)];
    spec
      .given(history)
      .when(cmd({ type: 'ReconcileHistory', data: { sessionId, checkpointId: 'm4', reason: 'regenerate' } }))
      .then([
        { type: 'MessagesRolledBack', schemaVersion: 1, data: { sessionId, fromIndex: 5, messageIds: ['m5', 'm6', 'm7'], sessionRevision: 1, lastSummarizedIndex: 4, reason: 'regenerate' } },
        { type: 'SummaryCompensated', schemaVersion: 1, data: { sessionId, taskId: 't1', memoryIds: ['b'], reason: 'regenerate' } },
      ]);
  });

  it('matches the host history by id, else by role and text, ignoring system prompts', () => {
    const history = [
      { role: 'system' as const, content: 'you are helpful' },
      { messageId: 'm0', role: 'user' as const, content: 'anything' },
      { role: 'assistant' as const, content: ' text 1 ' },
      { role: 'user' as const, content: 'edited' },
    ];
    spec
      .given(messages(4))
      .when(cmd({ type: 'ReconcileHistory', data: { sessionId, history, reason: 'edit' } }))
      .then([{ type: 'MessagesRolledBack', schemaVersion: 1, data: { sessionId, fromIndex: 2, messageIds: ['m2', 'm3'], sessionRevision: 1, lastSummarizedIndex: 0, reason: 'edit' } }]);
  });

  it('changes nothing when the host has every message, and refuses an unknown checkpoint', () => {
    spec.given(messages(2)).when(cmd({ type: 'ReconcileHistory', data: { sessionId, checkpointId: 'm1', reason: 'r' } })).then([]);
    spec.given(messages(2)).when(cmd({ type: 'ReconcileHistory', data: { sessionId, checkpointId: 'x', reason: 'r' } })).thenThrows(DomainError, /checkpointId x/);
  });

  it('resets a session: revision up, every summary compensated', () => {
    spec
      .given([...messages(4), scheduled('t1', 0, 4), committed('t1', ['a'], 4)])
      .when(cmd({ type: 'ResetSession', data: { sessionId, reason: 'user asked' } }))
      .then([
        { type: 'SessionReset', schemaVersion: 1, data: { sessionId, sessionRevision: 1, reason: 'user asked' } },
        { type: 'SummaryCompensated', schemaVersion: 1, data: { sessionId, taskId: 't1', memoryIds: ['a'], reason: 'user asked' } },
      ]);
  });

  it('schedules a window from the cursor, one at a time', () => {
    const schedule = (taskId: string, fromIndex: number, toIndex: number) =>
      cmd({ type: 'ScheduleSummary', data: { sessionId, taskId, fromIndex, toIndex, sessionRevision: 0 } });
    spec.given(messages(4)).when(schedule('t1', 0, 4)).then([scheduled('t1', 0, 4)]);
    spec.given([...messages(4), scheduled('t1', 0, 4)]).when(schedule('t2', 0, 4)).thenThrows(DomainError, /already runs/);
    spec.given(messages(4)).when(schedule('t1', 1, 4)).thenThrows(DomainError, /cursor/);
    spec.given(messages(4)).when(schedule('t1', 0, 5)).thenThrows(DomainError, /exceeds/);
  });

  it('commits only at the revision the task read, with the cursor clamped to the messages', () => {
    const commit = (lastSummarizedIndex: number, sessionRevision: number) =>
      cmd({ type: 'CommitSummary', data: { sessionId, taskId: 't1', memoryIds: ['a'], lastSummarizedIndex, sessionRevision } });
    spec.given([...messages(4), scheduled('t1', 0, 4)]).when(commit(9, 0)).then([committed('t1', ['a'], 4)]);
    const rolledBack: Body = {
      type: 'MessagesRolledBack', schemaVersion: 1,
      data: { sessionId, fromIndex: 3, messageIds: ['m3'], sessionRevision: 1, lastSummarizedIndex: 0, reason: 'undo' },
    };
    spec.given([...messages(4), scheduled('t1', 0, 4), rolledBack]).when(commit(4, 0)).thenThrows(DomainError, /revision is 1/);
    spec.given([...messages(4), scheduled('t1', 0, 4), rolledBack]).when(commit(4, 1)).thenThrows(DomainError, /not running/);
  });

  it('compensates and fails a running task, and ignores a task that is not running', () => {
    const compensate = cmd({ type: 'CompensateSummary', data: { sessionId, taskId: 't1', memoryIds: [], reason: 'cancelled' } });
    spec.given([...messages(2), scheduled('t1', 0, 2)]).when(compensate)
      .then([{ type: 'SummaryCompensated', schemaVersion: 1, data: { sessionId, taskId: 't1', memoryIds: [], reason: 'cancelled' } }]);
    spec.given(messages(2)).when(compensate).then([]);
    const fail = cmd({ type: 'FailSummary', data: { sessionId, taskId: 't1', error: 'llm down' } });
    spec.given([...messages(2), scheduled('t1', 0, 2)]).when(fail)
      .then([{ type: 'SummaryFailed', schemaVersion: 1, data: { sessionId, taskId: 't1', error: 'llm down' } }]);
    spec.given(messages(2)).when(fail).then([]);
  });

  it('cleans a stored message once', () => {
    const clean = cmd({ type: 'CleanMessage', data: { sessionId, messageId: 'm1', content: 'clean' } });
    spec.given(messages(2)).when(clean)
      .then([{ type: 'MessageCleaned', schemaVersion: 2, data: { sessionId, messageId: 'm1', index: 1, senderId: null, userId: null, content: 'clean' } }]);
    spec.given(messages(2)).when(cmd({ type: 'CleanMessage', data: { sessionId, messageId: 'm1', content: 'text 1' } })).then([]);
  });
});
