import type { RecordedEvent } from '../events/log/event-log.js';
import type { Projection, ProjectionTx } from './projection.js';

/*
 * The conversation store: live messages per session and each session's summary cursor and
 * running summary. A rolled-back or reset message's row is deleted, so the tables hold what a
 * clean run that only saw the surviving messages would hold. The session revision counts
 * rollbacks and resets, an audit of the session's history rather than its state, so it is a
 * projection of its own (`conversation_revisions`) and the two digests answer different questions.
 */

interface Pending {
  taskId: string;
  fromIndex: number;
  toIndex: number;
}

interface SessionRow {
  message_count: number;
  last_summarized_index: number;
  pending_summary: string | null;
}

function session(tx: ProjectionTx, sessionId: string): SessionRow {
  const row = tx.get<SessionRow>('SELECT message_count, last_summarized_index, pending_summary FROM {conversation_sessions} WHERE session_id = ?', sessionId);
  return row ?? { message_count: 0, last_summarized_index: 0, pending_summary: null };
}

// A session left with nothing (reset, or rolled back to its start) has no row, as if never seen.
function save(tx: ProjectionTx, sessionId: string, row: SessionRow): void {
  if (row.message_count === 0 && row.last_summarized_index === 0 && row.pending_summary === null) {
    tx.run('DELETE FROM {conversation_sessions} WHERE session_id = ?', sessionId);
    return;
  }
  tx.run(
    `INSERT INTO {conversation_sessions} (session_id, message_count, last_summarized_index, pending_summary) VALUES (?, ?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET message_count = excluded.message_count,
       last_summarized_index = excluded.last_summarized_index, pending_summary = excluded.pending_summary`,
    sessionId, row.message_count, row.last_summarized_index, row.pending_summary,
  );
}

const pendingOf = (row: SessionRow): Pending | null => (row.pending_summary ? (JSON.parse(row.pending_summary) as Pending) : null);
const clearIfTask = (row: SessionRow, taskId: string): string | null => (pendingOf(row)?.taskId === taskId ? null : row.pending_summary);

function applyOne(tx: ProjectionTx, e: RecordedEvent): void {
  switch (e.type) {
    case 'MessageRecorded': {
      const d = e.data;
      tx.run('DELETE FROM {conversation_messages} WHERE session_id = ? AND idx >= ?', d.sessionId, d.index);
      tx.run(
        `INSERT INTO {conversation_messages} (session_id, idx, message_id, role, sender_id, sender_name, content, sent_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        d.sessionId, d.index, d.messageId, d.role, d.senderId, d.senderName, d.content, d.sentAt,
      );
      return save(tx, d.sessionId, { ...session(tx, d.sessionId), message_count: d.index + 1 });
    }
    case 'MessagesRolledBack': {
      const d = e.data;
      tx.run('DELETE FROM {conversation_messages} WHERE session_id = ? AND idx >= ?', d.sessionId, d.fromIndex);
      return save(tx, d.sessionId, { message_count: d.fromIndex, last_summarized_index: d.lastSummarizedIndex, pending_summary: null });
    }
    case 'SessionReset':
      tx.run('DELETE FROM {conversation_messages} WHERE session_id = ?', e.data.sessionId);
      return save(tx, e.data.sessionId, { message_count: 0, last_summarized_index: 0, pending_summary: null });
    case 'SummaryScheduled': {
      const { taskId, fromIndex, toIndex } = e.data;
      const pending: Pending = { taskId, fromIndex, toIndex };
      return save(tx, e.data.sessionId, { ...session(tx, e.data.sessionId), pending_summary: JSON.stringify(pending) });
    }
    case 'SummaryCommitted': {
      const row = session(tx, e.data.sessionId);
      const pending = pendingOf(row);
      const done = pending?.taskId === e.data.taskId && e.data.lastSummarizedIndex >= pending.toIndex;
      return save(tx, e.data.sessionId, { ...row, last_summarized_index: e.data.lastSummarizedIndex, pending_summary: done ? null : row.pending_summary });
    }
    case 'SummaryCompensated':
    case 'SummaryFailed': {
      const row = session(tx, e.data.sessionId);
      return save(tx, e.data.sessionId, { ...row, pending_summary: clearIfTask(row, e.data.taskId) });
    }
    case 'MessageCleaned':
      tx.run('UPDATE {conversation_messages} SET content = ? WHERE session_id = ? AND idx = ?', e.data.content, e.data.sessionId, e.data.index);
      return;
    default:
      return;
  }
}

/** Sessions and their live messages; see `src/queries/conversations.ts` for the reads. */
export const conversationsProjection: Projection = {
  name: 'conversations',
  version: 1,
  tables: [
    { name: 'conversation_sessions', key: 'session_id' },
    { name: 'conversation_messages', key: 'session_id, idx' },
  ],
  handles: ['MessageRecorded', 'MessagesRolledBack', 'SessionReset', 'SummaryScheduled', 'SummaryCommitted', 'SummaryCompensated', 'SummaryFailed', 'MessageCleaned'],
  init(tx) {
    tx.exec(`
      CREATE TABLE {conversation_sessions} (
        session_id TEXT PRIMARY KEY,
        message_count INTEGER NOT NULL,
        last_summarized_index INTEGER NOT NULL,
        pending_summary TEXT
      ) WITHOUT ROWID;
      CREATE TABLE {conversation_messages} (
        session_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        message_id TEXT NOT NULL,
        role TEXT NOT NULL,
        sender_id TEXT,
        sender_name TEXT,
        content TEXT NOT NULL,
        sent_at TEXT NOT NULL,
        PRIMARY KEY (session_id, idx)
      ) WITHOUT ROWID;
    `);
  },
  apply(batch, tx) {
    for (const event of batch) applyOne(tx, event);
  },
  // An erased message reads as erased in a replay; a later recording at its index replaced it, so only its own row changes.
  eraseInPlace(erased, tx) {
    for (const e of erased) {
      if (e.type !== 'MessageRecorded') continue;
      const d = e.data;
      tx.run('UPDATE {conversation_messages} SET content = ?, sender_name = ? WHERE session_id = ? AND idx = ? AND message_id = ?', d.content, d.senderName, d.sessionId, d.index, d.messageId);
    }
  },
};

/** Each session's revision: how many rollbacks and resets it went through. */
export const conversationRevisionsProjection: Projection = {
  name: 'conversation_revisions',
  version: 1,
  tables: [{ name: 'conversation_revisions', key: 'session_id' }],
  handles: ['MessagesRolledBack', 'SessionReset'],
  init(tx) {
    tx.exec('CREATE TABLE {conversation_revisions} (session_id TEXT PRIMARY KEY, revision INTEGER NOT NULL) WITHOUT ROWID;');
  },
  apply(batch, tx) {
    for (const e of batch) {
      if (e.type !== 'MessagesRolledBack' && e.type !== 'SessionReset') continue;
      tx.run(
        'INSERT INTO {conversation_revisions} (session_id, revision) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET revision = excluded.revision',
        e.data.sessionId, e.data.sessionRevision,
      );
    }
  },  // Counts only: an erasure changes nothing here.
  eraseInPlace: () => undefined,
};
