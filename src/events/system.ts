import { z } from 'zod';
import { defineEvent } from './define.js';
import { idSchema, timestampSchema } from './metadata.js';

const position = z.string().regex(/^\d+$/, 'must be a non-negative integer string');

export const providerFingerprintSchema = z
  .object({
    provider: z.string().min(1),
    model: z.string().min(1),
    dimension: z.number().int().positive().nullable(),
    settings: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  })
  .strict();

export const calendarDateSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');

/**
 * The daily decay tick of `date` (in `timeZone`), as of `asOf` (that day's tick hour): how many
 * memories it decayed and atoms it moved, and the rules it applied. v2 adds the date and settings.
 */
export const decayTicked = defineEvent(
  'DecayTicked',
  2,
  () => z.object({
    tickId: idSchema,
    date: calendarDateSchema,
    timeZone: z.string().min(1).max(100),
    asOf: timestampSchema,
    decayRate: z.number().min(0),
    affected: z.number().int().min(0),
    atomTransitions: z.number().int().min(0),
    settings: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  }),
);

export const providerFingerprintChanged = defineEvent(
  'ProviderFingerprintChanged',
  1,
  () => z.object({
    role: z.enum(['embedding', 'llm', 'reranker']),
    previous: providerFingerprintSchema.nullable(),
    current: providerFingerprintSchema,
  }),
);

const rebuildTarget = { projection: z.string().min(1), generation: z.number().int().positive() };

export const projectionRebuildStarted = defineEvent(
  'ProjectionRebuildStarted',
  1,
  () => z.object({ ...rebuildTarget, headPosition: position, reason: z.string().min(1) }),
);

export const projectionRebuildCompleted = defineEvent(
  'ProjectionRebuildCompleted',
  1,
  () => z.object({ ...rebuildTarget, position, digest: z.string().regex(/^[0-9a-f]{64}$/) }),
);

export const projectionRebuildFailed = defineEvent(
  'ProjectionRebuildFailed',
  1,
  () => z.object({ ...rebuildTarget, error: z.string().min(1) }),
);

/**
 * A copy of the store was written. v2: why (`reason`), whether the engine manages it (kept in
 * `backups.dir`, pruned, shredded on erasure), what it holds (`log`: the log and keys without the
 * read models, rebuilt on restore; `full`: the whole file) and whether it was opened and checked.
 */
export const backupTaken = defineEvent(
  'BackupTaken',
  2,
  () => z.object({
    backupId: idSchema,
    path: z.string().min(1),
    position,
    bytes: z.number().int().min(0),
    sha256: z.string(),
    reason: z.string().min(1).max(200),
    managed: z.boolean(),
    contents: z.enum(['full', 'log']),
    verified: z.boolean(),
  }),
);

export const systemEvents = [
  decayTicked,
  providerFingerprintChanged,
  projectionRebuildStarted,
  projectionRebuildCompleted,
  projectionRebuildFailed,
  backupTaken,
] as const;
