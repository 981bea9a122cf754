import type { z } from 'zod';
import type { CommandMetadata } from '../../commands/decider.js';
import { stripInjection } from '../../queries/recall/format.js';
import { hookMetadata, type HookDeps } from './context.js';
import type { hostTurnMessageSchema } from './schemas.js';

/**
 * Records the turn's message, without any injection block a host sent back, at the host's time
 * or now; returns its id (the host's, or the command's) and the command metadata, so what
 * follows in the turn shares its correlation.
 */
export async function recordTurnMessage(
  deps: HookDeps,
  sessionId: string,
  role: 'user' | 'assistant',
  message: z.output<typeof hostTurnMessageSchema>,
): Promise<{ messageId: string; content: string; metadata: CommandMetadata }> {
  const metadata = hookMetadata(deps);
  const messageId = message.messageId ?? metadata.commandId;
  const content = stripInjection(message.content);
  await deps.store.handle({
    type: 'RecordMessage',
    data: { sessionId, messageId, role, senderId: message.senderId, senderName: message.senderName, content, sentAt: message.sentAt ?? metadata.now },
    metadata,
  });
  return { messageId, content, metadata };
}
