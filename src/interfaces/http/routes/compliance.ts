import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { idSchema } from '../../../events/metadata.js';
import { parsePublicKey } from '../../../replay/compliance/signature.js';
import { ownUser, requireUnscoped } from '../../shared/scope.js';
import type { App, DoorContext } from '../context.js';
import { errorResponses, notFound } from '../errors.js';
import { jobSchema, objectSchema } from '../wire.js';

export const subjectBody = z
  .object({
    user: idSchema.optional(),
    session: idSchema.optional(),
    persona: idSchema.optional(),
    all: z.boolean().optional(),
    format: z.enum(['jsonl', 'csv', 'both']).optional(),
  })
  .strict();
const exportParams = z.object({ id: z.string().regex(/^[\w-]{1,200}$/, 'an export id this API returned') });

/**
 * Compliance exports of a subject, written by the server under `server.exportsDir/<id>` (never
 * to a path the caller names), then read back file by file and verified against the manifest.
 */
export function complianceRoutes(app: App, { engine, jobs, config }: DoorContext): void {
  const root = resolve(config.server.exportsDir ?? `${resolve(config.dataDir)}-exports`);
  const dirOf = (id: string): string => {
    const dir = join(root, id);
    if (!existsSync(join(dir, 'manifest.json'))) throw notFound('export', id);
    return dir;
  };
  const manifestOf = (id: string) => JSON.parse(readFileSync(join(dirOf(id), 'manifest.json'), 'utf8')) as { files: { name: string }[]; subject: { kind: string; id: string | null } };
  // A scoped token reaches only the exports of its own user.
  const ownExport = (principal: Parameters<typeof ownUser>[0], id: string) => {
    const manifest = manifestOf(id);
    if (principal.userId !== null && !(manifest.subject.kind === 'user' && manifest.subject.id === principal.userId)) throw notFound('export', id);
    return manifest;
  };

  app.post('/v1/compliance/exports', {
    schema: { operationId: 'complianceExport', tags: ['compliance'], body: subjectBody, response: { 202: jobSchema, ...errorResponses } },
  }, async (req, reply) => {
    const { format, ...subject } = req.body;
    if (req.principal.userId !== null) {
      if (subject.session || subject.persona || subject.all) requireUnscoped(req.principal, 'exporting a session, persona or everything');
      subject.user = ownUser(req.principal, subject.user, 'user') ?? undefined;
    }
    const job = jobs.start('compliance-export', req.principal, async (_report, exportId) => {
      const manifest = await engine.complianceExport(subject, { dir: join(root, exportId), ...(format ? { format } : {}) });
      return { exportId, manifest };
    });
    return reply.code(202).header('location', `/v1/jobs/${job.jobId}`).send(jobs.view(job) as never);
  });

  app.get('/v1/compliance/exports/:id', {
    schema: { operationId: 'complianceManifest', tags: ['compliance'], params: exportParams, response: { 200: objectSchema, ...errorResponses } },
  }, async (req) => ownExport(req.principal, req.params.id) as never);

  app.get('/v1/compliance/exports/:id/files/:name', {
    schema: {
      operationId: 'complianceFile', tags: ['compliance'], params: exportParams.extend({ name: z.string().min(1).max(100) }),
      response: { 200: z.string().describe('The file as the manifest lists it'), ...errorResponses },
    },
  }, async (req, reply) => {
    const { id, name } = req.params;
    const manifest = ownExport(req.principal, id);
    if (name !== 'manifest.json' && !manifest.files.some((f) => f.name === name)) throw notFound('file', name, 'name');
    const type = name.endsWith('.csv') ? 'text/csv' : name.endsWith('.jsonl') ? 'application/x-ndjson' : 'application/json';
    return reply.type(`${type}; charset=utf-8`).send(readFileSync(join(dirOf(id), name), 'utf8'));
  });

  app.post('/v1/compliance/exports/:id/verify', {
    schema: {
      operationId: 'complianceVerify', tags: ['compliance'], params: exportParams,
      body: z.object({ publicKey: z.string().min(1).max(10_000).optional().describe('Also trust this Ed25519 public key (PEM), like --public-key') }).strict().nullish(),
      response: { 200: objectSchema, ...errorResponses },
    },
  }, async (req) => {
    ownExport(req.principal, req.params.id);
    const publicKey = req.body?.publicKey;
    // Checked here first so the error names the body field, not the CLI flag.
    if (publicKey) parsePublicKey(publicKey, 'publicKey');
    return engine.verifyComplianceExport(dirOf(req.params.id), publicKey ? { publicKey } : {}) as never;
  });
}
