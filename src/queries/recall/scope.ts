import type { MemoryDocument } from '../documents.js';
import type { RecallScope } from './types.js';

/** The SQL-level filters of a scope: session mode stays in the session, user mode with the user. */
export interface ScopeFilter {
  readonly sessionId?: string;
  readonly personaId?: string;
  readonly userId?: string;
}

/**
 * legacy: the session and persona given (the behaviour before scope modes existed);
 * session: only the session; user: only the user's memories, across sessions; global: everything.
 * A session or user mode without its id sees nothing rather than everything.
 */
export function scopeFilter(scope: RecallScope): ScopeFilter | null {
  const persona = scope.personaId ? { personaId: scope.personaId } : {};
  switch (scope.mode) {
    case 'session':
      return scope.sessionId ? { sessionId: scope.sessionId, ...persona } : null;
    case 'user':
      return scope.userId ? { userId: scope.userId, ...persona } : null;
    case 'legacy':
      return { ...(scope.sessionId ? { sessionId: scope.sessionId } : {}), ...persona };
    case 'global':
      return { ...persona };
    default:
      return null;
  }
}

export function inScope(doc: Pick<MemoryDocument, 'sessionId' | 'personaId' | 'userId'>, filter: ScopeFilter): boolean {
  return (
    (filter.sessionId === undefined || doc.sessionId === filter.sessionId) &&
    (filter.personaId === undefined || doc.personaId === filter.personaId) &&
    (filter.userId === undefined || doc.userId === filter.userId)
  );
}
