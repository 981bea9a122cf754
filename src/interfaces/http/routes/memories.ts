import { z } from 'zod';
import { commandSchemasFor } from '../../../commands/memory/commands.js';
import { defaultLimits } from '../../../events/bounds.js';
import { idSchema } from '../../../events/metadata.js';
import { recallInputSchema } from '../../../engine/recall.js';
import { actorOf } from '../../shared/principal.js';
import { canSee, ownUser, scopedRecall } from '../../shared/scope.js';
import type { App, DoorContext } from '../context.js';
import { errorResponses, HttpError, notFound } from '../errors.js';
import { memorySchema, objectSchema, receiptSchema } from '../wire.js';

const idParams = z.object({ id: idSchema });
const reasonBody = z.object({ reason: commandSchemasFor(defaultLimits).ForgetMemory.shape.reason.unwrap().optional() }).strict().default({});
const cursorSchema = z.string().max(500).describe('nextCursor of the previous page');
const listQuery = z
  .object({
    status: z.enum(['active', 'archived', 'forgotten', 'erased']).optional(),
    userId: idSchema.optional(),
    sessionId: idSchema.optional(),
    personaId: idSchema.optional(),
    text: z.string().min(1).max(500).optional().describe('Memories whose text contains this'),
    minImportance: z.coerce.number().min(0).max(1).optional(),
    maxImportance: z.coerce.number().min(0).max(1).optional(),
    createdFrom: z.iso.datetime({ offset: true }).or(z.iso.date()).optional().describe('Created at or after this time (a date means its start, UTC)'),
    createdTo: z.iso.datetime({ offset: true }).or(z.iso.date()).optional().describe('Created before this time (a date means the end of that day, UTC)'),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: cursorSchema.optional(),
  })
  .strict();

const encodeCursor = (c: { createdAt: string; memoryId: string }): string => Buffer.from(JSON.stringify([c.createdAt, c.memoryId])).toString('base64url');
function decodeCursor(cursor: string): { createdAt: string; memoryId: string } {
  const parsed = z.tuple([z.string(), z.string()]).safeParse((() => {
    try {
      return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    } catch {
      return null;
    }
  })());
  if (!parsed.success) throw new HttpError(400, 'invalid', 'invalid cursor: not a cursor this API returned', 'cursor');
  return { createdAt: parsed.data[0], memoryId: parsed.data[1] };
}

/** Memories: list with filters and keyset paging, read, write, change, archive, restore, forget; search. */
export function memoryRoutes(app: App, { engine, config }: DoorContext): void {
  // The command schemas at the configured limits (ADR 23), as the engine checks them.
  const commands = commandSchemasFor(config.limits);
  const writeBody = commands.WriteMemory.extend({ memoryId: idSchema.optional() });
  const visible = (principal: Parameters<typeof canSee>[0], id: string) => {
    const doc = engine.documents.get(id);
    if (!canSee(principal, doc) || !doc) throw notFound('memory', id);
    return doc;
  };
  const ctx = (req: { principal: Parameters<typeof actorOf>[1] }) => ({ actor: actorOf('http', req.principal) });

  app.get('/v1/memories', {
    schema: {
      operationId: 'listMemories', tags: ['memories'], querystring: listQuery,
      response: { 200: z.object({ items: z.array(memorySchema), total: z.number(), nextCursor: z.string().nullable() }), ...errorResponses },
    },
  }, async (req) => {
    const { cursor, userId, createdFrom, createdTo, ...rest } = req.query;
    const filter = { ...rest, ...timeRange(createdFrom, createdTo) };
    const page = engine.documents.page({ ...filter, ...withUser(ownUser(req.principal, userId)), ...(cursor ? { after: decodeCursor(cursor) } : {}) });
    return { items: page.items, total: page.total, nextCursor: page.next ? encodeCursor(page.next) : null } as never;
  });

  app.post('/v1/memories', {
    schema: { operationId: 'writeMemory', tags: ['memories'], body: writeBody, response: { 201: receiptSchema, ...errorResponses } },
  }, async (req, reply) => {
    const userId = ownUser(req.principal, req.body.userId);
    const receipt = await engine.writeMemory({ ...req.body, userId: userId ?? null }, ctx(req));
    return reply.code(201).send(receipt as never);
  });

  app.get('/v1/memories/:id', {
    schema: { operationId: 'getMemory', tags: ['memories'], params: idParams, response: { 200: memorySchema, ...errorResponses } },
  }, async (req) => visible(req.principal, req.params.id) as never);

  app.patch('/v1/memories/:id', {
    schema: { operationId: 'updateMemory', tags: ['memories'], params: idParams, body: commands.UpdateMemory.shape.changes, response: { 200: receiptSchema, ...errorResponses } },
  }, async (req) => {
    visible(req.principal, req.params.id);
    return engine.updateMemory(req.params.id, req.body, ctx(req)) as never;
  });

  const lifecycle = (name: 'archive' | 'restore' | 'forget', operationId: string) =>
    app.post(`/v1/memories/:id/${name}`, {
      schema: { operationId, tags: ['memories'], params: idParams, body: reasonBody, response: { 200: receiptSchema, ...errorResponses } },
    }, async (req) => {
      const { id } = req.params;
      visible(req.principal, id);
      const reason = req.body.reason;
      if (name === 'archive') return engine.archiveMemory(id, reason, ctx(req)) as never;
      if (name === 'restore') return engine.restoreMemory(id, ctx(req)) as never;
      return engine.forgetMemory(id, reason, ctx(req)) as never;
    });
  lifecycle('archive', 'archiveMemory');
  lifecycle('restore', 'restoreMemory');
  lifecycle('forget', 'forgetMemory');

  app.post('/v1/search', {
    schema: { operationId: 'search', tags: ['memories'], body: recallInputSchema(), response: { 200: objectSchema, ...errorResponses } },
  }, async (req) => engine.recall(scopedRecall(req.principal, req.body)) as never);
}

const withUser = (userId: string | null | undefined) => (userId ? { userId } : {});

/** Dates as UTC day bounds (`to` includes its whole day); times as given, normalised to UTC like createdAt. */
function timeRange(from: string | undefined, to: string | undefined): { createdFrom?: string; createdTo?: string } {
  const day = (d: string) => /^\d{4}-\d{2}-\d{2}$/.test(d);
  const iso = (d: string) => new Date(d).toISOString();
  const end = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString();
  return {
    ...(from ? { createdFrom: day(from) ? `${from}T00:00:00.000Z` : iso(from) } : {}),
    ...(to ? { createdTo: day(to) ? end(to) : iso(to) } : {}),
  };
}
