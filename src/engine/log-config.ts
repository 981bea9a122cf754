import { z } from 'zod';
import { lazy } from '../events/lazy.js';

/**
 * Where the log lives (ADR 27): `sqlite` (default) in the store file beside the read models, or
 * `eventstoredb`, one log shared by many nodes, each keeping its read models in its own file.
 */
export const logConfigSchema = lazy(() =>
  z
    .object({
      kind: z.enum(['sqlite', 'eventstoredb']).default('sqlite'),
      eventstoredb: z
        .object({
          /** `esdb://host:2113?tls=false`, or `esdb+discover://...` for a cluster (LIVINGMEMORY_EVENTSTORE_URL). */
          connectionString: z.string().min(1).optional(),
          /** Prefix of the engine's streams, so several stores (or other applications) can share one database. */
          namespace: z.string().regex(/^[A-Za-z0-9_.]+$/, 'letters, digits, _ and . only').max(100).default('livingmemory'),
          /** How long a write waits for this node's read models to reach it before answering (read-your-writes). */
          readYourWritesTimeoutMs: z.number().int().min(0).max(600_000).default(5000),
        })
        .strict()
        .default({ namespace: 'livingmemory', readYourWritesTimeoutMs: 5000 }),
    })
    .strict(),
);

export type LogConfig = z.output<ReturnType<typeof logConfigSchema>>;

