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
  () => z.object({
    erasureId: idSchema,
    subject: z.object({ kind: erasableSubjectKindSchema, id: idSchema }).strict(),
    reason: z.string().min(1).max(500),
    keyIds: z.array(z.number().int().positive()),
    counts: erasureCountsSchema,
  }),
);

/** A step of an erasure's plan: kebab-case, named by the code that runs it (`src/engine/erase`). */
export const erasureStepSchema = z.string().regex(/^[a-z][a-z0-9-]*$/, 'must be kebab-case').max(100);

const subject = z.object({ kind: erasableSubjectKindSchema, id: idSchema }).strict();

/**
 * An erasure began (ADR 19): its subject, why, and the steps it will take in order. Recorded before
 * any of them runs, so a process that dies part-way leaves the plan for the next open to finish.
 * `forced`: the subject had no data (nothing was sealed under its key) and the caller insisted.
 */
export const erasureStarted = defineEvent(
  'ErasureStarted',
  1,
  () => z.object({ erasureId: idSchema, subject, reason: z.string().min(1).max(500), steps: z.array(erasureStepSchema).min(1).max(50), forced: z.boolean() }),
);

/** One step of the erasure's plan is done (the key's destruction is recorded by SubjectErased itself). */
export const erasureStepCompleted = defineEvent('ErasureStepCompleted', 1, () => z.object({ erasureId: idSchema, step: erasureStepSchema }));

/** Every step of the plan is done. */
export const erasureFinished = defineEvent('ErasureFinished', 1, () => z.object({ erasureId: idSchema }));

export const erasureEvents = [subjectErased, erasureStarted, erasureStepCompleted, erasureFinished] as const;
