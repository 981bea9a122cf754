import { z } from 'zod';
import { defineEvent } from './define.js';
import { messageRoleSchema, optionalId } from './fields.js';
import { idSchema, timestampSchema } from './metadata.js';

const index = z.number().int().min(0);
const sessionRevision = z.number().int().min(0);
const reason = z.string().min(1).max(500);

/*
 * One stream per session (`conversation-<sessionId>`). Messages have consecutive indexes from 0;
 * a rollback removes a tail of them, so the next message takes the first freed index. The
 * session revision moves on every rollback and reset: a summary read at an older revision may
 * never commit. `lastSummarizedIndex` is exclusive: messages before it are summarized.
 */

export const messageRecorded = defineEvent(
  'MessageRecorded',
  2,
  () => z.object({
    sessionId: idSchema,
    messageId: idSchema,
    index,
    role: messageRoleSchema,
    senderId: optionalId,
    /** The host's user on the turn (v2): with the session and the sender, whose message it is (ADR 19). */
    userId: optionalId,
    senderName: z.string().max(200).nullable(),
    content: z.string(),
    /** When the host sent it (a host may pass its own times, e.g. dated benchmark sessions). */
    sentAt: timestampSchema,
  }),
);

export const messagesRolledBack = defineEvent(
  'MessagesRolledBack',
  1,
  () => z.object({
    sessionId: idSchema,
    fromIndex: index,
    messageIds: z.array(idSchema).min(1),
    sessionRevision,
    /** The summary cursor after the rollback: clamped to the surviving messages and summaries. */
    lastSummarizedIndex: index,
    reason,
  }),
);

export const sessionReset = defineEvent('SessionReset', 1, () => z.object({ sessionId: idSchema, sessionRevision, reason }));

export const summaryScheduled = defineEvent(
  'SummaryScheduled',
  1,
  () => z.object({ sessionId: idSchema, taskId: idSchema, fromIndex: index, toIndex: index, sessionRevision }),
);

export const summaryCommitted = defineEvent(
  'SummaryCommitted',
  1,
  () => z.object({
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
  () => z.object({ sessionId: idSchema, taskId: idSchema, memoryIds: z.array(idSchema), reason }),
);

/** A summary task that stopped on an error before writing anything it would have to take back. */
export const summaryFailed = defineEvent(
  'SummaryFailed',
  1,
  () => z.object({ sessionId: idSchema, taskId: idSchema, error: z.string().min(1).max(2000) }),
);

/** An injection fragment an older mode left in a stored message, removed (`lmem cleanup exec`). */
export const messageCleaned = defineEvent(
  'MessageCleaned',
  2,
  // Sender and user are named so the cleaned text is sealed under the same keys as the message (ADR 19).
  () => z.object({ sessionId: idSchema, messageId: idSchema, index, senderId: optionalId, userId: optionalId, content: z.string() }),
);

export const conversationEvents = [
  messageRecorded,
  messagesRolledBack,
  sessionReset,
  summaryScheduled,
  summaryCommitted,
  summaryCompensated,
  summaryFailed,
  messageCleaned,
] as const;
