import { parseOrThrow } from '../../events/errors.js';
import { isAllowed } from './guard.js';
import type { HookDeps } from './context.js';
import { recordTurnMessage } from './record-message.js';
import { hookSchemasFor } from './schemas.js';

export interface AfterLlmResult {
  /** stale: the user message it answers was rolled back meanwhile, so the reply was not recorded. */
  readonly status: 'ok' | 'not_ready' | 'rejected' | 'stale';
  readonly messageId: string | null;
  /** The background summary this reply started, if it brought the backlog to the threshold. */
  readonly summaryTaskId: string | null;
}

/** After the LLM answered: record the reply, and start a summary when the backlog reached the threshold. */
export async function afterLlmResponse(deps: HookDeps, input: unknown): Promise<AfterLlmResult> {
  const request = parseOrThrow(hookSchemasFor(deps.limits).afterLlmResponseSchema, input);
  const none = { messageId: null, summaryTaskId: null };
  if (!deps.isReady()) return { status: 'not_ready', ...none };
  const { sessionId } = request;
  return deps.store.withSession(sessionId, async () => {
    const state = await deps.store.state(sessionId);
    // In a group the reply has no user of its own: it is allowed when the person it answers was.
    const senderId = request.message.senderId ?? state.messages.at(-1)?.senderId ?? null;
    if (!isAllowed(deps.config, { ...request, senderId })) return { status: 'rejected', ...none };
    if (request.inReplyTo !== undefined && state.messages.at(-1)?.messageId !== request.inReplyTo) return { status: 'stale', ...none };
    const { messageId } = await recordTurnMessage(deps, request, 'assistant', request.message);
    const context = { sessionId, chatType: request.chatType, userId: request.userId, personaId: request.personaId };
    return { status: 'ok', messageId, summaryTaskId: await deps.runner.maybeSchedule(context) };
  });
}
