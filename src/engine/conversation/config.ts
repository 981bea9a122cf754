import { z } from 'zod';
import { lazy } from '../../events/lazy.js';
import { idSchema } from '../../events/metadata.js';

/** The automatic memory around each LLM call (issue names in comments). */
export const conversationConfigSchema = lazy(() =>
  z
    .object({
      /** memory_scope_mode: which memories a turn's recall may see. */
      scopeMode: z.enum(['legacy', 'session', 'user', 'global']).default('legacy'),
      /** Users and sessions allowed to capture, summarize and recall; an empty list allows all. */
      whitelist: z
        .object({ users: z.array(idSchema).default([]), sessions: z.array(idSchema).default([]) })
        .strict()
        .default({ users: [], sessions: [] }),
      /** summary threshold: unsummarized rounds (assistant replies) that start a summary. */
      summarizeThresholdRounds: z.number().int().min(1).max(10_000).default(10),
      /** A window splits where the day changes or the conversation paused this long. */
      idleGapMinutes: z.number().min(1).max(100_000).default(180),
      /** max_segments_per_run: segments one summary task consumes at most. */
      maxSegmentsPerRun: z.number().int().min(1).max(1000).default(4),
      /** inject_with_recent_context: the recall query includes the last few messages. */
      injectWithRecentContext: z.boolean().default(false),
      recentContextMessages: z.number().int().min(1).max(50).default(4),
      /** How long closing the engine waits for cancelled summary tasks. */
      shutdownTimeoutMs: z.number().int().min(0).max(600_000).default(5000),
    })
    .strict(),
);

export type ConversationConfig = z.output<ReturnType<typeof conversationConfigSchema>>;
