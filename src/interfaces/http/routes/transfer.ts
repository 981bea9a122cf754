import { z } from 'zod';
import { ValidationError } from '../../../events/errors.js';
import { actorOf } from '../../shared/principal.js';
import { importProgress } from '../../shared/progress.js';
import { ownUser, requireUnscoped } from '../../shared/scope.js';
import type { App, DoorContext } from '../context.js';
import { errorResponses } from '../errors.js';
import { polled } from '../jobs.js';
import { jobSchema, objectSchema } from '../wire.js';

const importBody = z
  .object({
    content: z.string().min(1).describe('The file: native JSON export, CSV, or JSON with content/text/summary/memory fields'),
    format: z.enum(['json', 'csv']).optional(),
    source: z.string().min(1).max(500).optional().describe('Where it came from (a file name), recorded on the import'),
  })
  .strict();

/** Import (preview, run as a job, roll back) and export of memories. */
export function transferRoutes(app: App, { engine, jobs, config }: DoorContext): void {
  const importLimit = { bodyLimit: config.server.importBodyLimitBytes };
  const input = (body: z.output<typeof importBody>) => ({ ...body, source: body.source ?? 'http' });

  app.post('/v1/imports/preview', {
    ...importLimit,
    schema: { operationId: 'previewImport', tags: ['transfer'], body: importBody, response: { 200: objectSchema, ...errorResponses } },
  }, async (req) => {
    requireUnscoped(req.principal, 'an import');
    return engine.previewImport(input(req.body)) as never;
  });

  app.post('/v1/imports', {
    ...importLimit,
    schema: { operationId: 'importMemories', tags: ['transfer'], body: importBody, response: { 202: jobSchema, ...errorResponses } },
  }, async (req, reply) => {
    requireUnscoped(req.principal, 'an import');
    // Refused at once, before a job exists, when a row is invalid: nothing is written.
    const preview = engine.previewImport(input(req.body));
    const bad = preview.invalidRows[0];
    if (bad) throw new ValidationError(`row ${bad.row}.${bad.field}`, `${bad.message}; nothing was imported (the preview lists every invalid row)`);
    const job = jobs.start('import', req.principal, async (report) => {
      report({ done: 0, total: preview.new, step: 'writing' });
      return polled(report, 'writing', importProgress(engine, preview.new), () => engine.importMemories(input(req.body), { actor: actorOf('http', req.principal) }));
    });
    return reply.code(202).header('location', `/v1/jobs/${job.jobId}`).send(jobs.view(job) as never);
  });

  app.post('/v1/imports/:id/rollback', {
    schema: { operationId: 'rollbackImport', tags: ['transfer'], params: z.object({ id: z.string().min(1).max(200) }), response: { 200: objectSchema, ...errorResponses } },
  }, async (req) => {
    requireUnscoped(req.principal, 'an import rollback');
    return engine.rollbackImport(req.params.id, { actor: actorOf('http', req.principal) }) as never;
  });

  app.get('/v1/export', {
    schema: {
      operationId: 'exportMemories', tags: ['transfer'],
      querystring: z.object({ format: z.enum(['json', 'csv']).default('json'), sessionId: z.string().min(1).optional(), userId: z.string().min(1).optional() }).strict(),
      response: { 200: z.string().describe('The export file: native JSON or CSV'), ...errorResponses },
    },
  }, async (req, reply) => {
    const userId = ownUser(req.principal, req.query.userId);
    const { format, sessionId } = req.query;
    const content = engine.exportMemories({ format, ...(sessionId ? { sessionId } : {}), ...(userId ? { userId } : {}) });
    return reply.type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8').send(content);
  });
}
