import { stampEvents } from '../../commands/decider.js';
import type { CommandMetadata } from '../../commands/decider.js';
import { streams } from '../../events/streams.js';
import type { RecalledMemory } from '../../queries/recall/types.js';
import { commandMetadata } from '../system-events.js';
import type { HookDeps } from './context.js';

export interface TurnRecall {
  readonly memories: readonly RecalledMemory[];
  readonly text: string;
  readonly error?: string;
}

/**
 * Appends what one turn recalled and injected (ADR 20), caused by the user message's command so
 * session replay can join the two. Appended on the session's recall stream, never on its
 * conversation stream, so summaries' revision checks do not see it.
 */
export async function recordRecall(deps: HookDeps, turn: { sessionId: string; messageId: string; cause: CommandMetadata }, recall: TurnRecall): Promise<void> {
  const correlationId = turn.cause.correlationId ?? turn.cause.commandId;
  const meta = commandMetadata(deps.env, deps.actor, { correlationId, causationId: turn.cause.commandId });
  const body = {
    type: 'MemoriesRecalled' as const,
    schemaVersion: 1 as const,
    data: {
      sessionId: turn.sessionId,
      messageId: turn.messageId,
      memoryIds: recall.memories.map((m) => m.memoryId),
      scores: recall.memories.map((m) => m.score),
      injectedChars: recall.text.length,
      error: recall.error ? recall.error.slice(0, 2000) : null,
    },
  };
  await deps.log.append(streams.recall(turn.sessionId), stampEvents([body], meta));
}
