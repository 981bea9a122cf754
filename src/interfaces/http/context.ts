import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from '../../engine/config.js';
import type { MemoryEngine } from '../../engine/engine.js';
import type { Authenticator, Principal } from '../shared/principal.js';
import type { Jobs } from './jobs.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who called, set by the auth hook before any /v1 or /mcp route runs. */
    principal: Principal;
  }
}

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, ZodTypeProvider>;

/** What every route module gets: the engine, the configuration, the job registry. */
export interface DoorContext {
  readonly engine: MemoryEngine;
  readonly config: Config;
  readonly jobs: Jobs;
  readonly auth: Authenticator;
}
