import { z } from 'zod';
import { ValidationError } from '../../../events/errors.js';
import { idSchema } from '../../../events/metadata.js';
import { recallInputSchema } from '../../../engine/recall.js';
import { canSee, requireUnscoped, scopedRecall } from '../../shared/scope.js';
import type { App, DoorContext } from '../context.js';
import { errorResponses, notFound } from '../errors.js';
import { objectSchema, positionParam, toPosition } from '../wire.js';

export const pointer = z.string().min(1).max(100).describe('A log position or an ISO-8601 time with a zone');

/** The audit trail, the log, session replay, time travel and diff: what a dashboard's history views read. */
export function auditRoutes(app: App, { engine }: DoorContext): void {
  app.get('/v1/history/:id', {
    schema: { operationId: 'history', tags: ['audit'], params: z.object({ id: idSchema }), response: { 200: objectSchema, ...errorResponses } },
  }, async (req) => {
    const { id } = req.params;
    // A scoped token sees the trail of its own memories only, never an atom's or another user's.
    if (req.principal.userId !== null && !canSee(req.principal, engine.documents.get(id))) throw notFound('memory', id);
    const found = await engine.history(id);
    if (!found) throw notFound('memory', id);
    return found as never;
  });

  app.get('/v1/events', {
    schema: {
      operationId: 'listEvents', tags: ['audit'],
      querystring: z.object({
        stream: z.string().min(1).max(300).optional(),
        from: positionParam.optional().describe('First position (inclusive); default: the last `limit` events'),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
      }).strict(),
      response: { 200: z.object({ events: z.array(objectSchema), head: z.number(), next: z.number().nullable() }), ...errorResponses },
    },
  }, async (req) => {
    requireUnscoped(req.principal, 'reading the log');
    const { stream, limit } = req.query;
    const head = await engine.log.headPosition();
    const from = toPosition(req.query.from);
    // The last `limit` are read backward: positions have gaps (EventStoreDB), so head - limit is no start.
    const events = stream
      ? (await engine.log.readStream(stream)).slice(0, limit)
      : from === undefined ? await engine.log.readBackward({ limit }) : await engine.log.readAll({ from, limit });
    const last = events.at(-1)?.globalPosition;
    return { events, head, next: !stream && last !== undefined && last < head ? last + 1n : null } as never;
  });

  app.get('/v1/sessions', {
    schema: { operationId: 'listSessions', tags: ['conversations'], response: { 200: z.object({ sessions: z.array(objectSchema) }), ...errorResponses } },
  }, async (req) => {
    requireUnscoped(req.principal, 'listing sessions');
    await engine.indexes.catchUp();
    return { sessions: engine.indexes.conversations.sessions() } as never;
  });

  app.get('/v1/sessions/:id/replay', {
    schema: {
      operationId: 'replaySession', tags: ['conversations'], params: z.object({ id: idSchema }),
      querystring: z.object({ toTurn: z.coerce.number().int().min(0).optional(), toPosition: positionParam.optional() }).strict(),
      response: { 200: objectSchema, ...errorResponses },
    },
  }, async (req) => {
    requireUnscoped(req.principal, 'session replay');
    const { toTurn, toPosition: at } = req.query;
    if (toTurn !== undefined && at !== undefined) throw new ValidationError('toTurn', 'give toTurn or toPosition, not both');
    const stop = toTurn !== undefined ? { turn: toTurn } : at !== undefined ? { position: BigInt(at) } : undefined;
    return engine.replaySession(req.params.id, stop).catch((error: unknown) => {
      if (error instanceof ValidationError && error.detail.startsWith('no session')) throw notFound('session', req.params.id);
      throw error;
    }) as never;
  });

  app.post('/v1/recall-at', {
    schema: { operationId: 'recallAt', tags: ['audit'], body: recallInputSchema().extend({ at: pointer }), response: { 200: objectSchema, ...errorResponses } },
  }, async (req) => {
    const { at, ...input } = req.body;
    // The scope is checked before the (costly) replay.
    const scoped = scopedRecall(req.principal, input);
    const past = await engine.at(at);
    try {
      const answer = await past.recall(scoped);
      return { position: past.position, asOf: past.asOf, ...answer } as never;
    } finally {
      past.close();
    }
  });

  app.get('/v1/diff', {
    schema: { operationId: 'diff', tags: ['audit'], querystring: z.object({ from: pointer, to: pointer }).strict(), response: { 200: objectSchema, ...errorResponses } },
  }, async (req) => {
    requireUnscoped(req.principal, 'a diff of the whole store');
    return engine.diff(req.query.from, req.query.to) as never;
  });
}
