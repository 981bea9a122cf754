import type { EventData, EventOf } from '../../events/catalog.js';
import { assertNever } from '../memory/state.js';

export type ConversationEvent = EventOf<
  | 'MessageRecorded'
  | 'MessagesRolledBack'
  | 'SessionReset'
  | 'SummaryScheduled'
  | 'SummaryCommitted'
  | 'SummaryCompensated'
  | 'SummaryFailed'
  | 'MessageCleaned'
>;

export type StoredMessage = Omit<EventData<'MessageRecorded'>, 'sessionId'>;

/** A committed summary: the memories built from messages [fromIndex, toIndex). */
export interface CommittedSummary {
  readonly taskId: string;
  readonly memoryIds: readonly string[];
  readonly fromIndex: number;
  readonly toIndex: number;
}

export interface PendingSummary {
  readonly taskId: string;
  readonly fromIndex: number;
  readonly toIndex: number;
  readonly sessionRevision: number;
}

export interface ConversationState {
  readonly messages: readonly StoredMessage[];
  readonly revision: number;
  /** Exclusive: messages before it are summarized. */
  readonly lastSummarizedIndex: number;
  readonly pending: PendingSummary | null;
  /** Contiguous from index 0 up to the cursor, oldest first. */
  readonly summaries: readonly CommittedSummary[];
}

export const initialConversationState = (): ConversationState => ({
  messages: [],
  revision: 0,
  lastSummarizedIndex: 0,
  pending: null,
  summaries: [],
});

/** The session's state: its live messages, the summary cursor, the running task and the summaries. */
export function evolveConversation(state: ConversationState, event: ConversationEvent): ConversationState {
  switch (event.type) {
    case 'MessageRecorded': {
      const { sessionId: _sessionId, ...message } = event.data;
      return { ...state, messages: [...state.messages.slice(0, message.index), message] };
    }
    case 'MessagesRolledBack':
      return {
        ...state,
        messages: state.messages.slice(0, event.data.fromIndex),
        revision: event.data.sessionRevision,
        lastSummarizedIndex: event.data.lastSummarizedIndex,
        pending: null,
        summaries: state.summaries.filter((s) => s.toIndex <= event.data.lastSummarizedIndex),
      };
    case 'SessionReset':
      return { ...initialConversationState(), revision: event.data.sessionRevision };
    case 'SummaryScheduled': {
      const { sessionId: _sessionId, ...pending } = event.data;
      return { ...state, pending };
    }
    case 'SummaryCommitted': {
      const { taskId, memoryIds, lastSummarizedIndex } = event.data;
      const summary = { taskId, memoryIds, fromIndex: state.lastSummarizedIndex, toIndex: lastSummarizedIndex };
      const done = state.pending?.taskId === taskId && lastSummarizedIndex >= state.pending.toIndex;
      return { ...state, lastSummarizedIndex, summaries: [...state.summaries, summary], pending: done ? null : state.pending };
    }
    case 'SummaryCompensated': {
      const taken = new Set(event.data.memoryIds);
      return {
        ...state,
        summaries: state.summaries.filter((s) => !s.memoryIds.some((id) => taken.has(id))),
        pending: state.pending?.taskId === event.data.taskId ? null : state.pending,
      };
    }
    case 'SummaryFailed':
      return { ...state, pending: state.pending?.taskId === event.data.taskId ? null : state.pending };
    case 'MessageCleaned':
      return {
        ...state,
        messages: state.messages.map((m) => (m.index === event.data.index ? { ...m, content: event.data.content } : m)),
      };
    default:
      return assertNever(event);
  }
}

/** Rounds not summarized yet: one per assistant reply after the cursor. */
export function unsummarizedRounds(state: ConversationState): number {
  return state.messages.slice(state.lastSummarizedIndex).filter((m) => m.role === 'assistant').length;
}
