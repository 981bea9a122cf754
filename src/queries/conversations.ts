import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { injectionOpen } from './recall/format.js';
import { statementCache } from './statements.js';

export interface ConversationMessage {
  readonly sessionId: string;
  readonly index: number;
  readonly messageId: string;
  readonly role: 'user' | 'assistant' | 'system' | 'tool';
  readonly senderId: string | null;
  readonly senderName: string | null;
  readonly content: string;
  readonly sentAt: string;
}

export interface ConversationSession {
  readonly sessionId: string;
  readonly messageCount: number;
  readonly lastSummarizedIndex: number;
  readonly pendingSummary: { taskId: string; fromIndex: number; toIndex: number } | null;
  readonly revision: number;
}

interface MessageRow {
  session_id: string;
  idx: number;
  message_id: string;
  role: ConversationMessage['role'];
  sender_id: string | null;
  sender_name: string | null;
  content: string;
  sent_at: string;
}

interface SessionRow {
  session_id: string;
  message_count: number;
  last_summarized_index: number;
  pending_summary: string | null;
  revision: number | null;
}

const toMessage = (r: MessageRow): ConversationMessage => ({
  sessionId: r.session_id,
  index: r.idx,
  messageId: r.message_id,
  role: r.role,
  senderId: r.sender_id,
  senderName: r.sender_name,
  content: r.content,
  sentAt: r.sent_at,
});

const toSession = (r: SessionRow): ConversationSession => ({
  sessionId: r.session_id,
  messageCount: r.message_count,
  lastSummarizedIndex: r.last_summarized_index,
  pendingSummary: r.pending_summary ? (JSON.parse(r.pending_summary) as ConversationSession['pendingSummary']) : null,
  revision: r.revision ?? 0,
});

/** Reads the conversation store (sessions, live messages) from the live generation. */
export function createConversationQueries(db: SqliteDatabase, table: (name: string) => string) {
  const prepare = statementCache(db);
  const sessionSql = () => `SELECT s.*, r.revision FROM ${table('conversation_sessions')} s
    LEFT JOIN ${table('conversation_revisions')} r ON r.session_id = s.session_id`;
  return {
    session(sessionId: string): ConversationSession | undefined {
      const row = prepare<[string], SessionRow>(`${sessionSql()} WHERE s.session_id = ?`).get(sessionId);
      return row && toSession(row);
    },
    sessions(): ConversationSession[] {
      return prepare<[], SessionRow>(`${sessionSql()} ORDER BY s.session_id`).all().map(toSession);
    },
    /** Messages [from, to) of a session, in order. */
    messages(sessionId: string, from = 0, to = Number.MAX_SAFE_INTEGER): ConversationMessage[] {
      const sql = `SELECT * FROM ${table('conversation_messages')} WHERE session_id = ? AND idx >= ? AND idx < ? ORDER BY idx`;
      return prepare<[string, number, number], MessageRow>(sql).all(sessionId, from, to).map(toMessage);
    },
    /** Stored messages that still carry an injection block an older mode wrote into the history. */
    withInjectionFragments(limit = 1000): ConversationMessage[] {
      const sql = `SELECT * FROM ${table('conversation_messages')} WHERE instr(content, ?) > 0 ORDER BY session_id, idx LIMIT ?`;
      return prepare<[string, number], MessageRow>(sql).all(injectionOpen, limit).map(toMessage);
    },
  };
}

export type ConversationQueries = ReturnType<typeof createConversationQueries>;
