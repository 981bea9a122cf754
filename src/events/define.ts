import { z } from 'zod';
import { lazy } from './lazy.js';
import { eventMetadataSchema } from './metadata.js';

/**
 * One event type at its current schema version: the shape the domain reads. The schema is built
 * on first use (a decode or a check of that type), not when the module loads: a CLI command
 * reads a few types, and building all of them was a tenth of its start (ADR 26).
 */
export function defineEvent<T extends string, V extends number, D extends z.ZodObject>(
  type: T,
  schemaVersion: V,
  data: () => D,
) {
  const build = () =>
    z
      .object({
        type: z.literal(type),
        schemaVersion: z.literal(schemaVersion),
        data: z.strictObject(data().shape as D['shape']),
        metadata: eventMetadataSchema,
      })
      .strict();
  return { type, schemaVersion, schema: lazy(build) };
}
