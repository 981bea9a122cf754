import { z } from 'zod';
import { defineEvent } from './define.js';
import { importanceSchema, labels, nonEmptyText, optionalId } from './fields.js';
import { idSchema, timestampSchema } from './metadata.js';

export const atomTypeSchema = z.enum(['episode', 'plan', 'fact', 'relation', 'preference', 'unknown']);
export const atomStatusSchema = z.enum(['active', 'dormant', 'superseded', 'expired', 'forgotten']);

export const atomExtracted = defineEvent(
  'AtomExtracted',
  1,
  z.object({
    atomId: idSchema,
    memoryId: idSchema,
    atomType: atomTypeSchema,
    content: nonEmptyText,
    entities: labels,
    importance: importanceSchema,
    confidence: z.number().min(0).max(1),
    ttlDays: z.number().positive(),
    expiresAt: timestampSchema.nullable(),
    decayType: z.enum(['none', 'linear', 'exponential']),
    sessionId: optionalId,
    personaId: optionalId,
  }),
);

export const atomReinforced = defineEvent(
  'AtomReinforced',
  1,
  z.object({
    atomId: idSchema,
    byMemoryId: idSchema,
    reinforcementCount: z.number().int().positive(),
    expiresAt: timestampSchema.nullable(),
  }),
);

export const atomStateChanged = defineEvent(
  'AtomStateChanged',
  1,
  z.object({
    atomId: idSchema,
    from: atomStatusSchema,
    to: atomStatusSchema,
    reason: z.string().min(1).max(500),
    supersededBy: idSchema.nullable(),
  }),
);

export const atomEvents = [atomExtracted, atomReinforced, atomStateChanged] as const;
