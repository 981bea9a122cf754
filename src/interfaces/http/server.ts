import fastifySwagger from '@fastify/swagger';
import Fastify from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from '../../engine/config.js';
import type { Environment } from '../../engine/clock.js';
import { systemEnvironment } from '../../engine/clock.js';
import type { MemoryEngine } from '../../engine/engine.js';
import { checkBindAddress, createAuthenticator } from '../shared/principal.js';
import type { App, DoorContext } from './context.js';
import { HttpError, toErrorReply } from './errors.js';
import { createJobs } from './jobs.js';
import { adminRoutes } from './routes/admin.js';
import { auditRoutes } from './routes/audit.js';
import { complianceRoutes } from './routes/compliance.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { graphRoutes } from './routes/graph.js';
import { hookRoutes } from './routes/hooks.js';
import { jobRoutes } from './routes/jobs.js';
import { memoryRoutes } from './routes/memories.js';
import { transferRoutes } from './routes/transfer.js';
import { toWire } from './wire.js';

/** A door mounted beside the REST routes (MCP at /mcp, the proxy at /v1/chat/completions). */
export type Mount = (app: App, ctx: DoorContext) => void | Promise<void>;

export interface HttpServerOptions {
  readonly env?: Environment;
  readonly mounts?: readonly Mount[];
}

const routeModules = [memoryRoutes, auditRoutes, transferRoutes, complianceRoutes, adminRoutes, hookRoutes, jobRoutes, graphRoutes, dashboardRoutes];

/** Builds the REST API over one engine; `listen` is the caller's (see `startHttpServer`). */
export async function createHttpServer(engine: MemoryEngine, config: Config, options: HttpServerOptions = {}) {
  const app = Fastify({ bodyLimit: config.server.bodyLimitBytes, logger: false }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const ctx: DoorContext = { engine, config, jobs: createJobs(options.env ?? systemEnvironment), auth: createAuthenticator(config.server.tokens) };

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'LivingMemory', version: '1', description: 'Event-sourced long-term memory for LLM agents: REST API of `lmem serve`' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: ctx.auth.required ? [{ bearer: [] }] : [],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });

  app.decorateRequest('principal', null as never);
  app.addHook('onRequest', async (req) => {
    if (!req.url.startsWith('/v1/') && !req.url.startsWith('/mcp')) return;
    const principal = ctx.auth.byHeader(req.headers.authorization);
    if (!principal) throw new HttpError(401, 'unauthorized', 'a valid bearer token is required (Authorization: Bearer <token>)', 'authorization');
    req.principal = principal;
  });
  app.addHook('preSerialization', async (_req, _reply, payload) => toWire(payload));
  app.setErrorHandler((error, _req, reply) => {
    const { status, body } = toErrorReply(error);
    void reply.code(status).send(body);
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send({ error: `no route ${req.method} ${req.url.split('?')[0]}`, field: null, code: 'route_not_found' });
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  for (const routes of routeModules) routes(app, ctx);
  for (const mount of options.mounts ?? []) await mount(app, ctx);
  await app.ready();
  return { app, ctx, close: async () => { await ctx.jobs.settle(); await app.close(); } };
}

export type HttpServer = Awaited<ReturnType<typeof createHttpServer>>;

/** Listens on `server.host:server.port`; returns the address it got (port 0 picks a free one). */
export async function startHttpServer(engine: MemoryEngine, config: Config, options: HttpServerOptions = {}) {
  checkBindAddress(config);
  const server = await createHttpServer(engine, config, options);
  const address = await server.app.listen({ host: config.server.host, port: config.server.port });
  return { ...server, address };
}
