import { z } from 'zod';
import { defineEvent } from './define.js';
import { messageRoleSchema, optionalId } from './fields.js';
import { idSchema } from './metadata.js';

const index = z.number().int().min(0);
const sessionRevision = z.number().int().min(0);

export const messageRecorded = defineEvent(
  'MessageRecorded',
  1,
  z.object({
    sessionId: idSchema,
    messageId: idSchema,
    index,
    role: messageRoleSchema,
    senderId: optionalId,
    senderName: z.string().max(200).nullable(),
    content: z.string(),
  }),
);

export const messagesRolledBack = defineEvent(
  'MessagesRolledBack',
  1,
  z.object({
    sessionId: idSchema,
    fromIndex: index,
    messageIds: z.array(idSchema).min(1),
    sessionRevision,
    reason: z.string().min(1).max(500),
  }),
);

export const sessionReset = defineEvent(
  'SessionReset',
  1,
  z.object({ sessionId: idSchema, sessionRevision, reason: z.string().min(1).max(500) }),
);

export const summaryScheduled = defineEvent(
  'SummaryScheduled',
  1,
  z.object({ sessionId: idSchema, taskId: idSchema, fromIndex: index, toIndex: index, sessionRevision }),
);

export const summaryCommitted = defineEvent(
  'SummaryCommitted',
  1,
  z.object({
    sessionId: idSchema,
    taskId: idSchema,
    memoryIds: z.array(idSchema),
    lastSummarizedIndex: index,
    sessionRevision,
  }),
);

export const summaryCompensated = defineEvent(
  'SummaryCompensated',
  1,
  z.object({
    sessionId: idSchema,
    taskId: idSchema,
    memoryIds: z.array(idSchema),
    reason: z.string().min(1).max(500),
  }),
);

export const conversationEvents = [
  messageRecorded,
  messagesRolledBack,
  sessionReset,
  summaryScheduled,
  summaryCommitted,
  summaryCompensated,
] as const;
