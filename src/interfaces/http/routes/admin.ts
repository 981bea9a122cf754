import { z } from 'zod';
import { ValidationError } from '../../../events/errors.js';
import { eraseInputSchema, erasePreviewSchema } from '../../../engine/erase/index.js';
import { engineProjections } from '../../../engine/indexes.js';
import type { MemoryEngine } from '../../../engine/engine.js';
import { rebuildProgress } from '../../shared/progress.js';
import { verifyStore } from '../../../replay/verify.js';
import { actorOf } from '../../shared/principal.js';
import { requireUnscoped } from '../../shared/scope.js';
import type { App, DoorContext } from '../context.js';
import { errorResponses } from '../errors.js';
import { polled, type Report } from '../jobs.js';
import { jobSchema, objectSchema } from '../wire.js';

const projectionNames = engineProjections.map((p) => p.name) as [string, ...string[]];
const rebuildBody = z
  .object({
    target: z.enum(['all', 'index', 'graph', ...projectionNames]).describe('A projection, every projection (all), the FTS + vector indexes (index), or the graph, atoms and their vectors (graph)'),
  })
  .strict();

async function rebuild(engine: MemoryEngine, target: string, report: Report): Promise<unknown> {
  if (target === 'index') return polled(report, 'index', rebuildProgress(engine, await engine.log.headPosition()), () => engine.maintenance.rebuildIndex());
  if (target === 'graph') {
    report({ done: 0, total: 2, step: 'graph and atoms' });
    const projections = await engine.runner.rebuildAll(['graph', 'atoms'], 'requested over http');
    report({ done: 1, total: 2, step: 'graph entry vectors' });
    return { projections, graphVectors: await engine.maintenance.rebuildGraphVectors() };
  }
  const names = target === 'all' ? projectionNames : [target];
  const results = [];
  for (const [i, name] of names.entries()) {
    report({ done: i, total: names.length, step: name });
    results.push(await engine.runner.rebuild(name, 'requested over http'));
  }
  return { projections: results };
}

/** Status, verification, rebuilds, erasure and backups: operator work, refused to scoped tokens but status. */
export function adminRoutes(app: App, { engine, jobs }: DoorContext): void {
  const accepted = (reply: { code(n: number): { header(k: string, v: string): { send(b: never): unknown } } }, job: ReturnType<typeof jobs.start>) =>
    reply.code(202).header('location', `/v1/jobs/${job.jobId}`).send(jobs.view(job) as never) as never;

  app.get('/v1/status', {
    schema: { operationId: 'status', tags: ['admin'], response: { 200: objectSchema, ...errorResponses } },
  }, async () => ({ ...(await engine.status()), memories: { active: engine.documents.count('active'), all: engine.documents.count() } }) as never);

  app.post('/v1/verify', {
    schema: {
      operationId: 'verify', tags: ['admin'],
      body: z.object({ anchor: z.object({ position: z.number().int().min(1), hash: z.string().regex(/^[0-9a-f]{64}$/) }).strict().optional() }).strict().default({}),
      response: { 202: jobSchema, ...errorResponses },
    },
  }, async (req, reply) => {
    requireUnscoped(req.principal, 'verify');
    const anchor = req.body.anchor;
    return accepted(reply, jobs.start('verify', req.principal, () => verifyStore({
      log: engine.log, runner: engine.runner, projections: engineProjections, vectors: [engine.indexes.vectors, engine.indexes.graphVectors],
      ...(anchor ? { chain: { anchor: { position: BigInt(anchor.position), hash: anchor.hash } } } : {}),
    })));
  });

  app.post('/v1/rebuilds', {
    schema: { operationId: 'rebuild', tags: ['admin'], body: rebuildBody, response: { 202: jobSchema, ...errorResponses } },
  }, async (req, reply) => {
    requireUnscoped(req.principal, 'a rebuild');
    return accepted(reply, jobs.start(`rebuild:${req.body.target}`, req.principal, (report) => rebuild(engine, req.body.target, report)));
  });

  app.post('/v1/erasures/preview', {
    schema: {
      operationId: 'previewErasure', tags: ['admin'], body: erasePreviewSchema,
      response: { 200: objectSchema.describe('What the erasure would shred (the engine\'s reach: events, messages, memories, derived memories, atoms, graph entries, embeddings), the sealed events by type'), ...errorResponses },
    },
  }, async (req) => {
    requireUnscoped(req.principal, 'an erasure');
    const reach = await engine.previewErasure(req.body);
    const byType: Record<string, number> = {};
    for (const e of await engine.log.sealedEvents(req.body)) byType[e.type] = (byType[e.type] ?? 0) + 1;
    return { subject: req.body, ...reach, sealedEvents: reach.events, byType } as never;
  });

  app.post('/v1/erasures', {
    schema: { operationId: 'erase', tags: ['admin'], body: eraseInputSchema, response: { 202: jobSchema, ...errorResponses } },
  }, async (req, reply) => {
    requireUnscoped(req.principal, 'an erasure');
    // A subject with nothing sealed is refused at once (400), before a job exists; the engine checks again.
    const { kind, id, force } = req.body;
    if (!force && (await engine.previewErasure({ kind, id })).events === 0) {
      throw new ValidationError(kind, `no data of ${kind} ${id} to erase (never seen, or erased already); force: true records an erasure anyway`);
    }
    const progress = rebuildProgress(engine, await engine.log.headPosition());
    return accepted(reply, jobs.start('erase', req.principal, (report) =>
      polled(report, 'sealing and rebuilding', progress, () => engine.eraseSubject(req.body, { actor: actorOf('http', req.principal) }))));
  });

  app.post('/v1/backups', {
    schema: { operationId: 'backup', tags: ['admin'], body: z.object({ path: z.string().min(1).max(4096), force: z.boolean().optional().describe('Replace an existing file at path') }).strict(), response: { 200: objectSchema, ...errorResponses } },
  }, async (req) => {
    requireUnscoped(req.principal, 'a backup');
    return engine.backup(req.body.path, { force: req.body.force === true }) as never;
  });

  // Public by nature: a scoped caller needs it to check its own signed compliance export.
  app.get('/v1/keys/public', {
    schema: {
      operationId: 'publicKey', tags: ['admin'],
      response: { 200: z.object({ keyId: z.string(), publicKey: z.string().describe('Ed25519 public key, PEM') }), ...errorResponses },
    },
  }, async () => {
    const { keyId, pem } = engine.publicKey();
    return { keyId, publicKey: pem };
  });
}
