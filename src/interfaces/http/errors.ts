import type { FastifyError } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError } from '../../commands/errors.js';
import { ConfigError } from '../../engine/config.js';
import { ConcurrencyError, fieldPath, ValidationError } from '../../events/errors.js';
import { AccessError } from '../shared/scope.js';

/** Every error answer of the REST API: a sentence, the field it is about (or null), a stable code. */
const errorSchema = z
  .object({ error: z.string(), field: z.string().nullable(), code: z.string() })
  .meta({ id: 'Error', description: 'What went wrong, the input field it names (or null), and a stable code' });

export type ErrorBody = z.output<typeof errorSchema>;

/** An error a route raises with its own status (404 of an id, 401 of a token). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field: string | null = null,
  ) {
    super(message);
  }
}

export const notFound = (what: string, id: string, field = 'id'): HttpError => new HttpError(404, `${what}_not_found`, `no ${what} ${id}`, field);

const domainStatus: Readonly<Record<string, number>> = { memory_not_found: 404, unknown_checkpoint: 400 };

/** Maps what the engine, zod and fastify throw onto a status and the one error body. */
export function toErrorReply(error: unknown): { status: number; body: ErrorBody } {
  const reply = (status: number, code: string, message: string, field: string | null = null) => ({ status, body: { error: message, field, code } });
  if (error instanceof HttpError) return reply(error.status, error.code, error.message, error.field);
  if (error instanceof ValidationError) return reply(400, 'invalid', error.message, error.field);
  if (error instanceof ConfigError) return reply(400, 'invalid', error.message, error.key);
  if (error instanceof AccessError) return reply(403, 'forbidden', error.message, error.field);
  if (error instanceof DomainError) return reply(domainStatus[error.code] ?? 409, error.code, error.message);
  if (error instanceof ConcurrencyError) return reply(409, 'conflict', error.message);
  if (hasZodFastifySchemaValidationErrors(error)) {
    const issue = error.validation[0];
    const unknownKey = issue?.keyword === 'unrecognized_keys' ? ((issue.params as { keys?: string[] }).keys?.[0] ?? '') : '';
    const path = [...(issue?.instancePath.split('/').filter((p) => p.length > 0) ?? []), ...(unknownKey ? [unknownKey] : [])];
    const field = fieldPath(path);
    return reply(400, 'invalid', `invalid ${field}: ${issue?.message ?? 'invalid'}`, field);
  }
  const fastify = error as Partial<FastifyError>;
  if (fastify.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return reply(413, 'too_large', 'the request body is larger than this route accepts');
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    return reply(fastify.statusCode, (fastify.code ?? 'bad_request').toLowerCase(), fastify.message ?? 'bad request');
  }
  return reply(500, 'internal', error instanceof Error ? error.message : String(error));
}

/** Errors a route may answer with, for its OpenAPI description. */
export const errorResponses = {
  400: errorSchema.describe('Invalid input; nothing changed'),
  401: errorSchema.describe('Missing or unknown bearer token'),
  403: errorSchema.describe('The token may not do this (scoped to another user)'),
  404: errorSchema.describe('No such memory, job or session'),
  409: errorSchema.describe('Conflicts with the current state (forgotten, exists, concurrent write)'),
  413: errorSchema.describe('Request body too large'),
} as const;
