import { z } from 'zod';
import { idSchema, timestampSchema } from './metadata.js';

export const importanceSchema = z.number().min(0).max(1);
export const nonEmptyText = z.string().refine((s) => s.trim().length > 0, 'must not be empty');
export const optionalId = idSchema.nullable();
export const labels = z.array(z.string().min(1).max(500)).max(200);

export const messageRoleSchema = z.enum(['user', 'assistant', 'system', 'tool']);

/** A conversation message a memory was built from; kept apart from the memory text. */
export const sourceMessageSchema = z
  .object({
    messageId: idSchema,
    sessionId: optionalId,
    role: messageRoleSchema,
    senderId: optionalId,
    senderName: z.string().max(200).nullable(),
    content: z.string(),
    at: timestampSchema.nullable(),
  })
  .strict();

export type SourceMessage = z.infer<typeof sourceMessageSchema>;
