import { z } from 'zod';
import { idSchema } from '../../../events/metadata.js';
import { streams } from '../../../events/streams.js';
import { previewSubjectExport } from '../../../replay/compliance/preview.js';
import { parseSubject } from '../../../replay/compliance/subject.js';
import { canSee, ownUser, requireUnscoped } from '../../shared/scope.js';
import type { App, DoorContext } from '../context.js';
import { errorResponses, notFound } from '../errors.js';
import { memorySchema, objectSchema } from '../wire.js';
import { pointer } from './audit.js';
import { subjectBody } from './compliance.js';

const detailsSchema = z
  .object({
    atoms: z.array(objectSchema),
    graph: z.object({
      entries: z.array(z.object({ entryId: z.string(), text: z.string(), nodes: z.array(z.object({ key: z.string(), type: z.string(), value: z.string() })) })),
      edges: z.array(z.object({ source: z.string(), target: z.string(), relation: z.string(), weight: z.number() })),
    }),
    sources: z.array(objectSchema),
  })
  .meta({ id: 'MemoryDetails', description: "A memory's atoms, graph entries and edges, and source messages" });

const memoryStatuses = ['active', 'archived', 'forgotten', 'erased'] as const;
const systemEvent = z.object({ position: z.number(), occurredAt: z.string(), actor: z.string(), data: objectSchema });
const lifecycleSchema = z
  .object({
    memories: z.record(z.enum(memoryStatuses), z.number()),
    atoms: z.record(z.string(), z.number()),
    decay: z.object({ ticks: z.number(), last: systemEvent.nullable() }),
    backups: z.object({ count: z.number(), latest: z.array(systemEvent) }),
  })
  .meta({ id: 'LifecycleStatus', description: 'Memories and atoms per lifecycle state, the last decay tick, the latest backups (newest first)' });

/** What the dashboard reads beside the core routes: a memory's derived rows, the memory list at a past point, an export's preview. */
export function dashboardRoutes(app: App, { engine }: DoorContext): void {
  app.get('/v1/memories/:id/details', {
    schema: { operationId: 'memoryDetails', tags: ['memories'], params: z.object({ id: idSchema }), response: { 200: detailsSchema, ...errorResponses } },
  }, async (req) => {
    const { id } = req.params;
    if (!canSee(req.principal, engine.documents.get(id))) throw notFound('memory', id);
    await engine.indexes.catchUp();
    return { atoms: engine.indexes.atoms.ofMemory(id), graph: engine.indexes.graphView.ofMemory(id), sources: engine.indexes.sources.of(id) } as never;
  });

  app.get('/v1/at/memories', {
    schema: {
      operationId: 'memoriesAt', tags: ['audit'],
      querystring: z.object({ at: pointer, limit: z.coerce.number().int().min(1).max(500).default(50) }).strict(),
      response: { 200: z.object({ position: z.number(), asOf: z.string(), total: z.number(), items: z.array(memorySchema) }), ...errorResponses },
    },
  }, async (req) => {
    requireUnscoped(req.principal, 'the store at a past point');
    const past = await engine.at(req.query.at);
    try {
      const page = past.view.documents.page({ limit: req.query.limit });
      return { position: past.position, asOf: past.asOf, total: page.total, items: page.items } as never;
    } finally {
      past.close();
    }
  });

  app.post('/v1/compliance/preview', {
    schema: {
      operationId: 'complianceExportPreview', tags: ['compliance'], body: subjectBody.omit({ format: true }),
      response: { 200: z.object({ subject: objectSchema, position: z.number(), counts: z.record(z.string(), z.number()) }), ...errorResponses },
    },
  }, async (req) => {
    const subject = { ...req.body };
    if (req.principal.userId !== null) {
      if (subject.session || subject.persona || subject.all) requireUnscoped(req.principal, 'previewing a session, persona or everything');
      subject.user = ownUser(req.principal, subject.user, 'user') ?? undefined;
    }
    return previewSubjectExport(engine.log, parseSubject(subject)) as never;
  });

  app.get('/v1/status/lifecycle', {
    schema: {
      operationId: 'lifecycleStatus', tags: ['admin'],
      querystring: z.object({ backups: z.coerce.number().int().min(1).max(200).default(20) }).strict(),
      response: { 200: lifecycleSchema, ...errorResponses },
    },
  }, async (req) => {
    requireUnscoped(req.principal, 'the lifecycle state of the whole store');
    await engine.indexes.catchUp();
    // Both are system streams of one event per tick or backup: read whole, they stay small.
    const asRow = (e: Awaited<ReturnType<typeof engine.log.readStream>>[number]) =>
      ({ position: e.globalPosition, occurredAt: e.metadata.occurredAt, actor: e.metadata.actor, data: e.data });
    const ticks = await engine.log.readStream(streams.decay);
    const backups = await engine.log.readStream(streams.backups);
    return {
      memories: Object.fromEntries(memoryStatuses.map((s) => [s, engine.documents.count(s)])),
      atoms: engine.indexes.atoms.countByStatus(),
      decay: { ticks: ticks.length, last: ticks.length ? asRow(ticks[ticks.length - 1]!) : null },
      backups: { count: backups.length, latest: backups.slice(-req.query.backups).reverse().map(asRow) },
    } as never;
  });
}
