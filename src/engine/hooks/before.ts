import { parseOrThrow } from '../../events/errors.js';
import { stripInjection } from '../../queries/recall/format.js';
import type { RecalledMemory } from '../../queries/recall/types.js';
import { isAllowed } from './guard.js';
import { recordTurnMessage } from './record-message.js';
import { recordRecall } from './record-recall.js';
import { hookMetadata, type HookDeps } from './context.js';
import { rollBack, rolledBackCount } from './rollback.js';
import { hookSchemasFor, type BeforeLlmRequest, type ExtraContentPart } from './schemas.js';

export interface BeforeLlmResult {
  /** ok; not_ready (nothing done, return at once); rejected (whitelist: nothing read or written). */
  readonly status: 'ok' | 'not_ready' | 'rejected';
  readonly messageId: string | null;
  readonly rolledBack: number;
  readonly memories: readonly RecalledMemory[];
  /** Added to this LLM call only, never to the stored history. */
  readonly extraParts: readonly ExtraContentPart[];
  /** The host's history without injection blocks older modes left in it, when the host sent one. */
  readonly history?: BeforeLlmRequest['history'];
  readonly recallError?: string;
}

const skipped = (status: 'not_ready' | 'rejected'): BeforeLlmResult => ({ status, messageId: null, rolledBack: 0, memories: [], extraParts: [] });

/** Before the LLM call: reconcile with the host's history, record the user message, recall and inject. */
export async function beforeLlmRequest(deps: HookDeps, input: unknown): Promise<BeforeLlmResult> {
  const request = parseOrThrow(hookSchemasFor(deps.limits).beforeLlmRequestSchema, input);
  if (!deps.isReady()) return skipped('not_ready');
  if (!isAllowed(deps.config, { ...request, senderId: request.message.senderId })) return skipped('rejected');
  const { sessionId } = request;
  return deps.store.withSession(sessionId, async () => {
    const history = request.history?.map((m) => ({ ...m, content: stripInjection(m.content) }));
    let rolledBack = 0;
    if (request.checkpointId !== undefined || history) {
      const data = {
        sessionId,
        reason: 'rolled back by the host',
        ...(request.checkpointId !== undefined ? { checkpointId: request.checkpointId } : {}),
        ...(history ? { history } : {}),
      };
      rolledBack = rolledBackCount(await rollBack(deps.store, deps.memories, { type: 'ReconcileHistory', data, metadata: hookMetadata(deps) }));
    }
    const { messageId, content, metadata } = await recordTurnMessage(deps, request, 'user', request.message);
    const recalled = await recallFor(deps, request, content);
    if (recalled.ran) await recordRecall(deps, { sessionId, messageId, cause: metadata }, recalled);
    const extraParts: ExtraContentPart[] = recalled.text ? [{ type: 'text', text: recalled.text }] : [];
    return {
      status: 'ok', messageId, rolledBack, memories: recalled.memories, extraParts,
      ...(history ? { history } : {}),
      ...(recalled.error ? { recallError: recalled.error } : {}),
    };
  });
}

/** Recall never fails the turn: the message is recorded either way, and the error is reported. */
async function recallFor(deps: HookDeps, request: BeforeLlmRequest, content: string) {
  if (!request.recall) return { ran: false, memories: [], text: '' };
  const query = deps.config.injectWithRecentContext
    ? recallQuery((await deps.store.state(request.sessionId)).messages, deps.config.recentContextMessages)
    : content;
  if (query.trim().length === 0) return { ran: false, memories: [], text: '' };
  try {
    const answer = await deps.recall({
      query,
      scope: { mode: deps.config.scopeMode, sessionId: request.sessionId, personaId: request.personaId, userId: request.userId },
      ...(request.topK ? { topK: request.topK } : {}),
    });
    return { ran: true, memories: answer.memories, text: answer.injection.text };
  } catch (error) {
    return { ran: true, memories: [], text: '', error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The recall query with recent context (inject_with_recent_context): the last `count` messages
 * before the newest one, then the newest, so "and what about her?" finds who "her" is. The tail
 * is kept when it is too long, since the newest words matter most.
 */
export function recallQuery(messages: readonly { readonly content: string }[], count: number): string {
  return messages.slice(-count - 1).map((m) => m.content).filter((c) => c.trim().length > 0).join('\n').slice(-8000);
}
