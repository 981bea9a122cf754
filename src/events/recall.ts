import { z } from 'zod';
import { defineEvent } from './define.js';
import { idSchema } from './metadata.js';

/*
 * What the before-LLM hook recalled and injected for one turn, on the session's own recall stream
 * (`recall-<sessionId>`), with the turn's correlation id. Ids and scores only: the injected text is
 * derivable from the memories as they were at this event's position (ADR 20).
 */
export const memoriesRecalled = defineEvent(
  'MemoriesRecalled',
  1,
  () => z.object({
    sessionId: idSchema,
    /** The user message the recall answered. */
    messageId: idSchema,
    memoryIds: z.array(idSchema).max(1000),
    /** Same order as memoryIds. */
    scores: z.array(z.number()).max(1000),
    injectedChars: z.number().int().min(0),
    /** Recall failed: the turn went on without memories. */
    error: z.string().min(1).max(2000).nullable(),
  }),
);

export const recallEvents = [memoriesRecalled] as const;
