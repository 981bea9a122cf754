import { stampEvents, type EventBody } from '../../src/commands/decider.js';
import type { CommittedSummary, PendingSummary, StoredMessage } from '../../src/commands/conversation/state.js';
import type { DomainEvent } from '../../src/events/catalog.js';
import type { SourceMessage } from '../../src/events/fields.js';
import { openDatabase } from '../../src/events/log/sqlite-database.js';
import { createSqliteEventLog } from '../../src/events/log/sqlite-event-log.js';
import { streams } from '../../src/events/streams.js';
import { conversationsProjection } from '../../src/projections/conversations.js';
import { createProjectionRunner } from '../../src/projections/runner.js';
import { sourcesProjection } from '../../src/projections/sources.js';
import { testMetadata } from './decider-spec.js';

export interface CleanRun {
  readonly sessionId: string;
  /** The surviving messages, as the test's own model has them. */
  readonly messages: readonly StoredMessage[];
  readonly summaries: readonly CommittedSummary[];
  readonly pending: PendingSummary | null;
  /** The text the summarizer gives for a window. */
  readonly textOf: (window: readonly StoredMessage[]) => string;
}

const sourceOf = (sessionId: string, m: StoredMessage): SourceMessage => ({
  messageId: m.messageId, sessionId, role: m.role, senderId: m.senderId, senderName: m.senderName, content: m.content, at: m.sentAt,
});

/**
 * Digests of the conversation store and of memory sources after a run that only ever saw the
 * surviving messages and the surviving summaries (each one scheduled and committed, no rollback,
 * no failure), built in a fresh in-memory log.
 */
export async function cleanRunDigests(run: CleanRun): Promise<{ conversations: string; sources: string }> {
  const { sessionId } = run;
  const db = openDatabase(':memory:');
  const log = createSqliteEventLog(db);
  const runner = createProjectionRunner({ db, log, projections: [conversationsProjection, sourcesProjection] });
  const conversation: EventBody[] = run.messages.map((m) => ({ type: 'MessageRecorded', schemaVersion: 2, data: { sessionId, ...m } }));
  const memories: EventBody[] = [];
  const tasks = [...new Set(run.summaries.map((s) => s.taskId))];
  for (const taskId of tasks) {
    const own = run.summaries.filter((s) => s.taskId === taskId);
    const toIndex = run.pending?.taskId === taskId ? run.pending.toIndex : (own.at(-1)?.toIndex ?? 0);
    conversation.push({ type: 'SummaryScheduled', schemaVersion: 1, data: { sessionId, taskId, fromIndex: own[0]?.fromIndex ?? 0, toIndex, sessionRevision: 0 } });
    for (const s of own) {
      conversation.push({ type: 'SummaryCommitted', schemaVersion: 1, data: { sessionId, taskId, memoryIds: [...s.memoryIds], lastSummarizedIndex: s.toIndex, sessionRevision: 0 } });
      const window = run.messages.slice(s.fromIndex, s.toIndex);
      for (const memoryId of s.memoryIds) {
        memories.push({
          type: 'MemoryWritten', schemaVersion: 2,
          data: {
            memoryId, text: run.textOf(window), importance: 0.5, sessionId, personaId: null, userId: null, topics: [], keyFacts: [],
            participants: [], sentiment: null, sources: window.map((m) => sourceOf(sessionId, m)),
          },
        });
      }
    }
  }
  if (run.pending && !tasks.includes(run.pending.taskId)) {
    const { taskId, fromIndex, toIndex } = run.pending;
    conversation.push({ type: 'SummaryScheduled', schemaVersion: 1, data: { sessionId, taskId, fromIndex, toIndex, sessionRevision: 0 } });
  }
  try {
    if (conversation.length > 0) await log.append(streams.conversation(sessionId), stampEvents<DomainEvent>(conversation, testMetadata(1)));
    for (const [n, m] of memories.entries()) {
      await log.append(streams.memory(`clean-${n}`), stampEvents<DomainEvent>([m], testMetadata(2 + n)));
    }
    await runner.catchUp();
    return { conversations: runner.digest('conversations'), sources: runner.digest('memory_sources') };
  } finally {
    await runner.stop();
    await log.close();
    db.close();
  }
}
