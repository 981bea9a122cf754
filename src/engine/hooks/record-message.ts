import type { CommandMetadata } from '../../commands/decider.js';
import { stripInjection } from '../../queries/recall/format.js';
import { hookMetadata, type HookDeps } from './context.js';
import type { HostTurnMessage } from './schemas.js';

/** Who a turn's message is from and for: the session and the host's user on the turn. */
export interface TurnParty {
  readonly sessionId: string;
  readonly userId: string | null;
}

/**
 * Records the turn's message, without any injection block a host sent back, at the host's time
 * or now; returns its id (the host's, or the command's) and the command metadata, so what
 * follows in the turn shares its correlation. The turn's `userId` is recorded with the message,
 * and a user message without a `senderId` is the user's own: these decide what an erasure and a
 * compliance export of the user reach (ADR 19).
 */
export async function recordTurnMessage(
  deps: HookDeps,
  turn: TurnParty,
  role: 'user' | 'assistant',
  message: HostTurnMessage,
): Promise<{ messageId: string; content: string; metadata: CommandMetadata }> {
  const metadata = hookMetadata(deps);
  const messageId = message.messageId ?? metadata.commandId;
  const content = stripInjection(message.content);
  const { sessionId, userId } = turn;
  const senderId = message.senderId ?? (role === 'user' ? userId : null);
  await deps.store.handle({
    type: 'RecordMessage',
    data: { sessionId, messageId, role, senderId, userId, senderName: message.senderName, content, sentAt: message.sentAt ?? metadata.now },
    metadata,
  });
  return { messageId, content, metadata };
}
