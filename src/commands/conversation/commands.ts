import type { Command } from '../decider.js';
import type { StoredMessage } from './state.js';

/** A message of the host's own history, as it stands now; matched by id when it has one, else by role and text. */
export interface HostMessage {
  readonly messageId?: string | undefined;
  readonly role: StoredMessage['role'];
  readonly content: string;
}

type Session = { readonly sessionId: string };

export type RecordMessage = Command<'RecordMessage', Session & Omit<StoredMessage, 'index'>>;
/**
 * Brings the stored history in line with the host's: `checkpointId` names the last message the host
 * still has (null: none), `history` is the host's whole history. Messages past them are rolled back.
 */
export type ReconcileHistory = Command<
  'ReconcileHistory',
  Session & { readonly checkpointId?: string | null; readonly history?: readonly HostMessage[]; readonly reason: string }
>;
export type ResetSession = Command<'ResetSession', Session & { readonly reason: string }>;
export type ScheduleSummary = Command<
  'ScheduleSummary',
  Session & { readonly taskId: string; readonly fromIndex: number; readonly toIndex: number; readonly sessionRevision: number }
>;
export type CommitSummary = Command<
  'CommitSummary',
  Session & { readonly taskId: string; readonly memoryIds: readonly string[]; readonly lastSummarizedIndex: number; readonly sessionRevision: number }
>;
export type CompensateSummary = Command<
  'CompensateSummary',
  Session & { readonly taskId: string; readonly memoryIds: readonly string[]; readonly reason: string }
>;
export type FailSummary = Command<'FailSummary', Session & { readonly taskId: string; readonly error: string }>;
export type CleanMessage = Command<'CleanMessage', Session & { readonly messageId: string; readonly content: string }>;

export type ConversationCommand =
  | RecordMessage
  | ReconcileHistory
  | ResetSession
  | ScheduleSummary
  | CommitSummary
  | CompensateSummary
  | FailSummary
  | CleanMessage;
