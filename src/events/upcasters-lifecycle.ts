import { z } from 'zod';
import { idSchema } from './metadata.js';
import type { Upcaster } from './upcasters.js';

// The v1 shapes of the lifecycle events, as main wrote them before issue 12 (ADR 29).
const decayedV1 = z.object({ memoryId: idSchema, tickId: idSchema, from: z.number(), to: z.number() }).strict();
const tickedV1 = z.object({ tickId: idSchema, asOf: z.string(), decayRate: z.number(), affected: z.number() }).strict();
const reinforcedV1 = z
  .object({ atomId: idSchema, byMemoryId: idSchema, reinforcementCount: z.number(), expiresAt: z.string().nullable() })
  .strict();
const consolidatedV1 = z.object({ memoryId: idSchema, mergedMemoryIds: z.array(idSchema) }).strict();
const backupV1 = z
  .object({ backupId: idSchema, path: z.string(), position: z.string(), bytes: z.number(), sha256: z.string() })
  .strict();

/** Each lifecycle event's step from v1 to v2: the fields v1 lacked get the value v1 meant. */
export const lifecycleUpcasters: readonly Upcaster[] = [
  {
    type: 'MemoryImportanceDecayed',
    fromVersion: 1,
    schema: decayedV1,
    // v1 did not touch the access count: taking nothing away is the same as 0 -> 0.
    up: (v1: z.infer<typeof decayedV1>) => ({ tickId: v1.tickId, decays: [{ memoryId: v1.memoryId, from: v1.from, to: v1.to, accessFrom: 0, accessTo: 0 }] }),
  },
  {
    type: 'DecayTicked',
    fromVersion: 1,
    schema: tickedV1,
    up: (v1: z.infer<typeof tickedV1>) => ({
      ...v1,
      date: new Date(v1.asOf).toISOString().slice(0, 10),
      timeZone: 'UTC',
      atomTransitions: 0,
      settings: {},
    }),
  },
  {
    type: 'AtomReinforced',
    fromVersion: 1,
    schema: reinforcedV1,
    up: (v1: z.infer<typeof reinforcedV1>) => ({ ...v1, reason: `restated by memory ${v1.byMemoryId}` }),
  },
  {
    type: 'MemoriesConsolidated',
    fromVersion: 1,
    schema: consolidatedV1,
    up: (v1: z.infer<typeof consolidatedV1>) => ({ ...v1, consolidationId: v1.memoryId, grouping: 'session', retention: 'archive', reason: 'consolidated' }),
  },
  {
    type: 'BackupTaken',
    fromVersion: 1,
    schema: backupV1,
    up: (v1: z.infer<typeof backupV1>) => ({ ...v1, reason: 'requested', managed: false, contents: 'full', verified: false }),
  },
];
