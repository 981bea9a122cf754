import { z } from 'zod';
import { defineEvent } from './define.js';
import { idSchema } from './metadata.js';

export const erasableSubjectKindSchema = z.enum(['user', 'session', 'persona']);

const count = z.number().int().min(0);

/** How many stored events the destroyed key had sealed, by kind of content. */
export const erasureCountsSchema = z
  .object({ memories: count, memoryUpdates: count, atoms: count, graphLinks: count, messages: count, events: count })
  .strict();

export type ErasureCounts = z.infer<typeof erasureCountsSchema>;

/**
 * A subject's key was destroyed (crypto-shredding, ADR 19): who and when are in the metadata,
 * why in `reason`; no content. `keyIds` names the destroyed keys, so every envelope they sealed
 * can be told apart in an audit of the log.
 */
export const subjectErased = defineEvent(
  'SubjectErased',
  1,
  z.object({
    erasureId: idSchema,
    subject: z.object({ kind: erasableSubjectKindSchema, id: idSchema }).strict(),
    reason: z.string().min(1).max(500),
    keyIds: z.array(z.number().int().positive()),
    counts: erasureCountsSchema,
  }),
);

export const erasureEvents = [subjectErased] as const;
