import { z } from 'zod';
import { DomainError } from '../../commands/errors.js';
import { ValidationError, parseOrThrow } from '../../events/errors.js';
import { idSchema } from '../../events/metadata.js';
import { stripInjection } from '../../queries/recall/format.js';
import type { AfterLlmResponseInput, BeforeLlmRequestInput } from '../inputs.js';
import { afterLlmResponse } from './after.js';
import { beforeLlmRequest } from './before.js';
import { hookMetadata, type HookDeps } from './context.js';
import { rollBack } from './rollback.js';

export type { HookDeps } from './context.js';

const resetInputSchema = z.object({ sessionId: idSchema, reason: z.string().min(1).max(500) }).strict();
export type { BeforeLlmResult } from './before.js';
export type { AfterLlmResult } from './after.js';

/** How a reset is recorded: why, and whether a session that never recorded a message is reset anyway. */
export interface ResetOptions {
  readonly reason?: string;
  readonly force?: boolean;
}

/** Who calls the hooks: a door names the actor (`http:alice`) that the turn's events carry, and a caller limited to one user. */
export interface HookCallContext {
  readonly actor?: string;
  /** Recall in user mode (the request's userId) whatever the configured scope mode. */
  readonly userOnly?: boolean;
}

/** The host-facing conversation API: the two hooks around each LLM call, plus reset, summarize and cleanup. */
export function createConversationHooks(deps: HookDeps) {
  const as = (ctx: HookCallContext): HookDeps => {
    const named = ctx.actor ? { ...deps, actor: ctx.actor } : deps;
    if (!ctx.userOnly) return named;
    // A caller limited to one user recalls that user's memories only, whatever the scope mode.
    return { ...named, recall: (input) => deps.recall({ ...(input as object), scope: { ...(input as { scope: object }).scope, mode: 'user' } }) };
  };
  const known = async (sessionId: string): Promise<boolean> => {
    await deps.catchUp();
    return deps.conversations.session(sessionId) !== undefined;
  };
  return {
    beforeLlmRequest: (request: BeforeLlmRequestInput, ctx: HookCallContext = {}) => beforeLlmRequest(as(ctx), request),
    afterLlmResponse: (response: AfterLlmResponseInput, ctx: HookCallContext = {}) => afterLlmResponse(as(ctx), response),
    /**
     * Forgets the session: its messages and the memories summarized from them; a running summary is
     * cancelled. A session that never recorded a message is refused (most often a typo) unless `force`.
     */
    reset: (sessionId: string, options: string | ResetOptions = {}) =>
      deps.store.withSession(sessionId, async () => {
        const { reason = 'session reset', force = false } = typeof options === 'string' ? { reason: options } : options;
        if (!sessionId) throw new ValidationError('session', 'is required');
        parseOrThrow(resetInputSchema, { sessionId, reason });
        if (!force && !(await known(sessionId))) {
          throw new DomainError('unknown_session', `no session "${sessionId}" has recorded a message; force the reset to record it anyway`);
        }
        deps.runner.cancelSession(sessionId);
        await rollBack(deps.store, deps.memories, { type: 'ResetSession', data: { sessionId, reason }, metadata: hookMetadata(deps) });
      }),
    /** Whether the session ever recorded a message (a reset of an unknown one is most often a typo). */
    knownSession: known,
    /**
     * Summarizes the backlog now, whatever the threshold: of one session, or of every session with
     * one; waits for the tasks. Without `maxSegments` the whole backlog, a run after another (a run
     * takes `maxSegmentsPerRun` segments), after any summary already running. The turn's context is
     * unknown here: no user or persona, and the chat type is read from the window (several people: a group).
     */
    async summarize(options: { sessionId?: string; maxSegments?: number } = {}) {
      await deps.catchUp();
      const sessions = options.sessionId ? [options.sessionId] : deps.conversations.sessions().map((s) => s.sessionId);
      const results = [];
      for (const sessionId of sessions) {
        const context = { sessionId, chatType: null, userId: null, personaId: null };
        const runs = options.maxSegments ? { maxSegments: options.maxSegments } : {};
        for (;;) {
          const running = deps.runner.tasks().filter((t) => t.sessionId === sessionId && t.state === 'running');
          for (const t of running) await deps.runner.wait(t.taskId);
          const taskId = await deps.store.withSession(sessionId, () => deps.runner.maybeSchedule(context, { force: true, ...runs }));
          const result = taskId ? await deps.runner.wait(taskId) : undefined;
          if (result) results.push(result);
          // One run when asked for n segments; otherwise until nothing is left or a run did not commit.
          if (!result || result.state !== 'committed' || options.maxSegments) break;
        }
      }
      return results;
    },
    /** Stored messages with injection blocks from older modes: listed (`preview`) or cleaned (`exec`, one event each). */
    async cleanup(mode: 'preview' | 'exec') {
      await deps.catchUp();
      const found = deps.conversations.withInjectionFragments();
      if (mode === 'exec') {
        for (const m of found) {
          await deps.store.withSession(m.sessionId, () =>
            deps.store.handle({ type: 'CleanMessage', data: { sessionId: m.sessionId, messageId: m.messageId, content: stripInjection(m.content) }, metadata: hookMetadata(deps) }),
          );
        }
      }
      return { mode, messages: found.map((m) => ({ sessionId: m.sessionId, index: m.index, messageId: m.messageId, cleaned: stripInjection(m.content) })) };
    },
    tasks: () => deps.runner.tasks(),
    waitForTask: (taskId: string) => deps.runner.wait(taskId),
    cancelTask: (taskId: string) => deps.runner.cancel(taskId),
  };
}

export type ConversationHooks = ReturnType<typeof createConversationHooks>;
