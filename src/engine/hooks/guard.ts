import type { ConversationConfig } from '../conversation/config.js';

/** The whitelist of users and sessions that may capture, summarize and recall; an empty list allows all. */
export function isAllowed(config: ConversationConfig, who: { sessionId: string; userId: string | null; senderId: string | null }): boolean {
  const { users, sessions } = config.whitelist;
  const user = who.userId ?? who.senderId;
  const userOk = users.length === 0 || (user !== null && users.includes(user));
  const sessionOk = sessions.length === 0 || sessions.includes(who.sessionId);
  return userOk && sessionOk;
}
