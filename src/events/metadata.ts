import { z } from 'zod';

export const idSchema = z.string().min(1).max(200);
export const timestampSchema = z.iso.datetime({ offset: true });

/** Who did it, when, and why: every event carries this, given by the command, never read from a clock below it. */
export const eventMetadataSchema = z
  .object({
    eventId: idSchema,
    occurredAt: timestampSchema,
    correlationId: idSchema,
    causationId: idSchema,
    actor: z.string().min(1).max(200),
    /** Set by the log on read when the event's sealed content could not be opened: its subject was erased (ADR 19). */
    erased: z.literal(true).optional(),
  })
  .strict();

export type EventMetadata = z.infer<typeof eventMetadataSchema>;
