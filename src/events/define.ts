import { z } from 'zod';
import { eventMetadataSchema } from './metadata.js';

/** One event type at its current schema version: the shape the domain reads. */
export function defineEvent<T extends string, V extends number, D extends z.ZodObject>(
  type: T,
  schemaVersion: V,
  data: D,
) {
  return z
    .object({
      type: z.literal(type),
      schemaVersion: z.literal(schemaVersion),
      data: z.strictObject(data.shape as D["shape"]),
      metadata: eventMetadataSchema,
    })
    .strict();
}
