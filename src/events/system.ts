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

export const decayTicked = defineEvent(
  'DecayTicked',
  1,
  z.object({ tickId: idSchema, asOf: timestampSchema, decayRate: z.number().min(0), affected: z.number().int().min(0) }),
);

export const providerFingerprintChanged = defineEvent(
  'ProviderFingerprintChanged',
  1,
  z.object({
    role: z.enum(['embedding', 'llm', 'reranker']),
    previous: providerFingerprintSchema.nullable(),
    current: providerFingerprintSchema,
  }),
);

const rebuildTarget = { projection: z.string().min(1), generation: z.number().int().positive() };

export const projectionRebuildStarted = defineEvent(
  'ProjectionRebuildStarted',
  1,
  z.object({ ...rebuildTarget, headPosition: position, reason: z.string().min(1) }),
);

export const projectionRebuildCompleted = defineEvent(
  'ProjectionRebuildCompleted',
  1,
  z.object({ ...rebuildTarget, position, digest: z.string().regex(/^[0-9a-f]{64}$/) }),
);

export const projectionRebuildFailed = defineEvent(
  'ProjectionRebuildFailed',
  1,
  z.object({ ...rebuildTarget, error: z.string().min(1) }),
);

export const backupTaken = defineEvent(
  'BackupTaken',
  1,
  z.object({ backupId: idSchema, path: z.string().min(1), position, bytes: z.number().int().min(0), sha256: z.string() }),
);

export const systemEvents = [
  decayTicked,
  providerFingerprintChanged,
  projectionRebuildStarted,
  projectionRebuildCompleted,
  projectionRebuildFailed,
  backupTaken,
] as const;
