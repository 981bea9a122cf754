import type { RecallInput } from '../../engine/inputs.js';
import type { MemoryDocument } from '../../queries/documents.js';
import type { Principal } from './principal.js';

/** The caller may not do this: a token limited to one user asked for more. */
export class AccessError extends Error {
  override readonly name = 'AccessError';
  constructor(
    readonly field: string | null,
    message: string,
  ) {
    super(message);
  }
}

/** A memory the caller may see: every one for an unscoped token, its user's for a scoped one. */
export const canSee = (principal: Principal, doc: Pick<MemoryDocument, 'userId'> | undefined): boolean =>
  doc !== undefined && (principal.userId === null || doc.userId === principal.userId);

/** Refuses a scoped token: the operation reads or changes more than one user's data. */
export function requireUnscoped(principal: Principal, what: string): void {
  if (principal.userId !== null) throw new AccessError(null, `${what} needs a token that is not limited to one user`);
}

/** The user a scoped caller writes or reads as; another user given explicitly is refused. */
export function ownUser(principal: Principal, given: string | null | undefined, field = 'userId'): string | null | undefined {
  if (principal.userId === null) return given;
  if (given !== undefined && given !== null && given !== principal.userId) {
    throw new AccessError(field, `this token may only use user ${principal.userId}`);
  }
  return principal.userId;
}

/** A recall limited to the caller's user: a scoped token always recalls in user mode, as its user. */
export function scopedRecall<T extends RecallInput>(principal: Principal, input: T): T {
  if (principal.userId === null) return input;
  const userId = ownUser(principal, input.scope?.userId, 'scope.userId');
  return { ...input, scope: { mode: 'user', userId, personaId: input.scope?.personaId ?? null } };
}
