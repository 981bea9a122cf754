import { z } from 'zod';
import { defineEvent } from './define.js';
import { importanceSchema, labels, nonEmptyText, optionalId } from './fields.js';
import { idSchema, timestampSchema } from './metadata.js';

export const atomTypeSchema = z.enum(['episode', 'plan', 'fact', 'relation', 'preference', 'unknown']);
/** How an atom's weight fades between its last reinforcement and its expiry; `none` never fades. */
export const atomDecayTypeSchema = z.enum(['none', 'linear', 'exponential', 'step']);
export const atomStatusSchema = z.enum(['active', 'dormant', 'superseded', 'expired', 'forgotten']);

export type AtomStatus = z.infer<typeof atomStatusSchema>;

/**
 * The atom state machine (ADR 29): the only moves an AtomStateChanged may make. Forgotten is
 * final; expired and superseded atoms only wait to be forgotten; a dormant atom wakes when used.
 */
export const legalAtomTransitions: Readonly<Record<AtomStatus, readonly AtomStatus[]>> = {
  active: ['dormant', 'superseded', 'expired', 'forgotten'],
  dormant: ['active', 'superseded', 'expired', 'forgotten'],
  superseded: ['forgotten'],
  expired: ['forgotten'],
  forgotten: [],
};

export function isLegalAtomTransition(from: AtomStatus, to: AtomStatus): boolean {
  return legalAtomTransitions[from].includes(to);
}

export const atomExtracted = defineEvent(
  'AtomExtracted',
  1,
  () => z.object({
    atomId: idSchema,
    memoryId: idSchema,
    atomType: atomTypeSchema,
    content: nonEmptyText,
    entities: labels,
    importance: importanceSchema,
    confidence: z.number().min(0).max(1),
    ttlDays: z.number().positive(),
    expiresAt: timestampSchema.nullable(),
    decayType: atomDecayTypeSchema,
    sessionId: optionalId,
    personaId: optionalId,
  }),
);

/** v2: `byMemoryId` is null when an access (not a restating memory) reinforced it, and `reason` says which. */
export const atomReinforced = defineEvent(
  'AtomReinforced',
  2,
  () => z.object({
    atomId: idSchema,
    byMemoryId: idSchema.nullable(),
    reason: z.string().min(1).max(500),
    reinforcementCount: z.number().int().positive(),
    expiresAt: timestampSchema.nullable(),
  }),
);

export const atomStateChanged = defineEvent(
  'AtomStateChanged',
  1,
  () => z.object({
    atomId: idSchema,
    from: atomStatusSchema,
    to: atomStatusSchema,
    reason: z.string().min(1).max(500),
    supersededBy: idSchema.nullable(),
  }),
);

export const atomEvents = [atomExtracted, atomReinforced, atomStateChanged] as const;
