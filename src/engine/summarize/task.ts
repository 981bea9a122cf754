import type { StoredMessage } from '../../commands/conversation/state.js';
import { DomainError } from '../../commands/errors.js';
import type { SourceMessage } from '../../events/fields.js';
import type { Environment } from '../clock.js';
import type { ConversationStore } from '../conversation/store.js';
import type { LlmProvider, SummaryRequest } from '../../providers/llm/provider.js';
import { commandMetadata } from '../system-events.js';

/** Where a summary's memories go: the engine's write path. */
export interface MemoryWriter {
  write(input: Record<string, unknown>): Promise<unknown>;
  forget(memoryId: string, reason: string): Promise<unknown>;
}

/** Who the conversation is with, as the host said on the turn that scheduled the summary. */
export interface SummaryContext {
  readonly sessionId: string;
  /** Null when the caller does not know (the CLI): a window with several people is a group chat. */
  readonly chatType: SummaryRequest['chatType'] | null;
  readonly userId: string | null;
  readonly personaId: string | null;
}

export interface SummaryTaskInput {
  readonly taskId: string;
  readonly context: SummaryContext;
  readonly revision: number;
  readonly segments: readonly (readonly StoredMessage[])[];
  readonly signal: AbortSignal;
}

export interface SummaryTaskDeps {
  readonly store: ConversationStore;
  readonly llm: LlmProvider;
  readonly memories: MemoryWriter;
  readonly env: Environment;
  readonly actor: string;
}

export type TaskOutcome = 'committed' | 'compensated' | 'failed';

const sourceOf = (sessionId: string, m: StoredMessage): SourceMessage => ({
  messageId: m.messageId, sessionId, role: m.role, senderId: m.senderId, senderName: m.senderName, content: m.content, at: m.sentAt,
});

/** A memory id the task can name before writing, so a crashed task's memory is found again (`<taskId>.<segment>`). */
export const segmentMemoryId = (taskId: string, segment: number): string => `${taskId}.${segment}`;

/**
 * Summarizes the segments oldest first: for each, the summary becomes a memory with its sources,
 * then the cursor moves, only if the session revision is still the one the task read (checked
 * under the store write lock). A refused commit, a cancel or an error after a write forgets what
 * was written but not committed, and records the compensation.
 */
export async function runSummaryTask(deps: SummaryTaskDeps, input: SummaryTaskInput): Promise<TaskOutcome> {
  const { store, env } = deps;
  const { taskId, context, signal } = input;
  const { sessionId } = context;
  const meta = () => commandMetadata(env, deps.actor, { correlationId: taskId });
  let uncommitted: string[] = [];
  try {
    for (const [n, segment] of input.segments.entries()) {
      signal.throwIfAborted();
      const messages = segment.map((m) => ({ ...m, at: m.sentAt }));
      const summary = await deps.llm.summarize({ sessionId, chatType: context.chatType ?? chatTypeOf(segment), messages }, signal);
      signal.throwIfAborted();
      const memoryId = segmentMemoryId(taskId, n);
      uncommitted = [memoryId];
      await deps.memories.write({
        memoryId, text: summary.summary, importance: summary.importance, sessionId, personaId: context.personaId, userId: context.userId ?? userOf(segment),
        topics: summary.topics, keyFacts: summary.keyFacts, participants: summary.participants, sentiment: summary.sentiment,
        sources: segment.map((m) => sourceOf(sessionId, m)),
      });
      signal.throwIfAborted();
      const last = segment.at(-1)?.index ?? 0;
      await store.withWriteLock(() =>
        store.handle({
          type: 'CommitSummary',
          data: { sessionId, taskId, memoryIds: [memoryId], lastSummarizedIndex: last + 1, sessionRevision: input.revision },
          metadata: meta(),
        }),
      );
      uncommitted = [];
    }
    return 'committed';
  } catch (error) {
    const reason = describe(error, signal);
    if (uncommitted.length === 0 && !signal.aborted && !isStale(error)) {
      await store.handle({ type: 'FailSummary', data: { sessionId, taskId, error: reason }, metadata: meta() });
      throw error;
    }
    for (const memoryId of uncommitted) await deps.memories.forget(memoryId, `summary compensated: ${reason}`.slice(0, 500));
    await store.handle({ type: 'CompensateSummary', data: { sessionId, taskId, memoryIds: uncommitted, reason: reason.slice(0, 500) }, metadata: meta() });
    if (signal.aborted || isStale(error)) return 'compensated';
    throw error;
  }
}

/** The host's user the segment's messages were recorded with, when they name one and only one (ADR 19). */
function userOf(segment: readonly StoredMessage[]): string | null {
  const users = new Set(segment.flatMap((m) => (m.userId === null ? [] : [m.userId])));
  return users.size === 1 ? ([...users][0] as string) : null;
}

const chatTypeOf = (segment: readonly StoredMessage[]): SummaryRequest['chatType'] =>
  new Set(segment.filter((m) => m.role === 'user').map((m) => m.senderId ?? m.senderName)).size > 1 ? 'group' : 'private';

const isStale = (error: unknown): boolean =>
  error instanceof DomainError && (error.code === 'stale_revision' || error.code === 'summary_not_pending');

function describe(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'cancelled';
  if (isStale(error)) return 'the session changed while summarizing';
  const text = error instanceof Error ? error.message : String(error);
  return text.trim().length > 0 ? text : 'failed';
}
