import { z } from 'zod';
import { lazy } from '../../events/lazy.js';

const fraction = () => z.number().min(0).max(1);
const positive = () => z.number().positive();

/** A time zone the runtime knows (IANA name or UTC); checked once, where the setting is read. */
export const timeZoneSchema = lazy(() =>
  z.string().min(1).refine((zone) => {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, 'must be a time zone name such as UTC or Europe/Paris'),
);

/**
 * The daily importance decay, with the original's defaults: 1% a day, less for memories accessed
 * inside the window (by their access count, up to `maxAccessCount`), the count halved after each
 * tick; importance never falls below `floor`; at or above `protectAbove` it does not decay.
 * Below `policy.threshold` (and older than `policy.minAgeDays`) a memory can be archived or forgotten.
 */
export const decaySettingsSchema = lazy(() =>
  z
    .object({
      hour: z.number().int().min(0).max(23).default(3),
      timeZone: timeZoneSchema().default('UTC'),
      rate: fraction().default(0.01),
      accessWindowDays: positive().default(30),
      maxAccessCount: z.number().min(1).default(10),
      accessCountMultiplier: fraction().default(0.5),
      floor: fraction().default(0.01),
      protectAbove: fraction().default(1),
      policy: z
        .object({
          action: z.enum(['none', 'archive', 'forget']).default('none'),
          threshold: fraction().default(0.05),
          minAgeDays: z.number().min(0).default(30),
        })
        .strict()
        .default({ action: 'none', threshold: 0.05, minAgeDays: 30 }),
    })
    .strict(),
);

/** Atoms: dormant when their decay score falls below `dormantBelow`, forgotten `forgetAfterDays` after expiry. */
export const atomLifecycleSettingsSchema = lazy(() =>
  z
    .object({
      dormantBelow: fraction().default(0.5),
      forgetAfterDays: z.number().min(0).default(7),
      reinforceOnAccess: z.boolean().default(true),
      /** An access reinforces an atom at most once in this many hours (a dormant one always wakes). */
      accessCooldownHours: z.number().min(0).default(24),
    })
    .strict(),
);

/** Consolidation, with the original's defaults (3 memories, 7 days, importance below 0.5, 5 groups a run). */
export const consolidationSettingsSchema = lazy(() =>
  z
    .object({
      daily: z.boolean().default(false),
      grouping: z.enum(['session', 'semantic']).default('session'),
      similarity: fraction().default(0.7),
      neighbours: z.number().int().min(1).max(100).default(10),
      minGroupSize: z.number().int().min(2).default(3),
      minAgeDays: z.number().min(0).default(7),
      maxImportance: fraction().default(0.5),
      maxGroups: z.number().int().min(1).default(5),
      retention: z.enum(['archive', 'forget']).default('archive'),
    })
    .strict(),
);

export const lifecycleSettingsSchema = lazy(() =>
  z
    .object({
      /** Runs the decay ticks (and what follows them) while the engine is open. */
      scheduler: z.boolean().default(true),
      decay: decaySettingsSchema().default(decaySettingsSchema().parse({})),
      atoms: atomLifecycleSettingsSchema().default(atomLifecycleSettingsSchema().parse({})),
      consolidation: consolidationSettingsSchema().default(consolidationSettingsSchema().parse({})),
    })
    .strict(),
);

export type DecaySettings = z.output<ReturnType<typeof decaySettingsSchema>>;
export type AtomLifecycleSettings = z.output<ReturnType<typeof atomLifecycleSettingsSchema>>;
export type ConsolidationSettings = z.output<ReturnType<typeof consolidationSettingsSchema>>;
export type LifecycleSettings = z.output<ReturnType<typeof lifecycleSettingsSchema>>;

