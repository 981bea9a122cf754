import { z } from 'zod';
import { idSchema } from '../../../events/metadata.js';
import { hookSchemasFor } from '../../../engine/hooks/schemas.js';
import { actorOf } from '../../shared/principal.js';
import { ownUser, requireUnscoped } from '../../shared/scope.js';
import type { App, DoorContext } from '../context.js';
import { errorResponses } from '../errors.js';
import { objectSchema } from '../wire.js';

/** The conversation lifecycle for hosts in any language: the two hooks, reset, summarize now, cleanup. */
export function hookRoutes(app: App, { engine, config }: DoorContext): void {
  const { beforeLlmRequestSchema, afterLlmResponseSchema } = hookSchemasFor(config.limits);
  app.post('/v1/hooks/before-llm-request', {
    schema: { operationId: 'beforeLlmRequest', tags: ['hooks'], body: beforeLlmRequestSchema, response: { 200: objectSchema, ...errorResponses } },
  }, async (req) => {
    const userId = ownUser(req.principal, req.body.userId) ?? null;
    return engine.beforeLlmRequest({ ...req.body, userId }, { actor: actorOf('http', req.principal), userOnly: req.principal.userId !== null }) as never;
  });

  app.post('/v1/hooks/after-llm-response', {
    schema: { operationId: 'afterLlmResponse', tags: ['hooks'], body: afterLlmResponseSchema, response: { 200: objectSchema, ...errorResponses } },
  }, async (req) => {
    const userId = ownUser(req.principal, req.body.userId) ?? null;
    return engine.afterLlmResponse({ ...req.body, userId }, { actor: actorOf('http', req.principal), userOnly: req.principal.userId !== null }) as never;
  });

  app.post('/v1/sessions/:id/reset', {
    schema: {
      operationId: 'resetSession', tags: ['conversations'], params: z.object({ id: idSchema }),
      body: z.object({ reason: z.string().min(1).max(500).optional() }).strict().default({}),
      response: { 200: objectSchema, ...errorResponses },
    },
  }, async (req) => {
    requireUnscoped(req.principal, 'a session reset');
    await engine.conversation.reset(req.params.id, req.body.reason ?? 'reset over http');
    return { sessionId: req.params.id, reset: true } as never;
  });

  app.post('/v1/summaries', {
    schema: {
      operationId: 'summarize', tags: ['conversations'],
      body: z.object({ sessionId: idSchema.optional(), maxSegments: z.number().int().min(1).max(1000).optional() }).strict().default({}),
      response: { 200: z.object({ results: z.array(objectSchema) }), ...errorResponses },
    },
  }, async (req) => {
    requireUnscoped(req.principal, 'summarizing');
    return { results: await engine.conversation.summarize(req.body) } as never;
  });

  app.post('/v1/cleanup', {
    schema: {
      operationId: 'cleanup', tags: ['conversations'], body: z.object({ mode: z.enum(['preview', 'exec']).default('preview') }).strict().default({ mode: 'preview' }),
      response: { 200: objectSchema, ...errorResponses },
    },
  }, async (req) => {
    requireUnscoped(req.principal, 'cleanup');
    return engine.conversation.cleanup(req.body.mode) as never;
  });
}
