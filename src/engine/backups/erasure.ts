import { parseOrThrow } from '../../events/errors.js';
import { eraseInputSchema, type Erasure, type ErasureStep } from '../erase/index.js';
import type { CallContext } from '../write-path.js';
import type { ManagedBackups } from './managed.js';

/**
 * The erasure's last step (ADR 29): the subject's key, and the cached vectors the live store no
 * longer holds, destroyed in every managed backup, so a restore cannot bring the subject back.
 */
export function shredBackupsStep(backups: ManagedBackups): ErasureStep {
  return {
    name: 'shred-managed-backups',
    async run(_deps, { process }) {
      await backups.shred(process.subject);
    },
  };
}

/**
 * `eraseSubject` with a managed backup first (a batch that cannot be undone otherwise), taken only
 * when the erasure will run: bad input and a refused subject change nothing. That backup holds the
 * subject's key until the erasure's last step shreds it with the others.
 */
export function backupBeforeErase(erasure: Erasure, backups: ManagedBackups) {
  return async (input: unknown, ctx: CallContext = {}) => {
    const { kind, id, force } = parseOrThrow(eraseInputSchema, input);
    const reach = await erasure.previewErasure({ kind, id });
    if (reach.events > 0 || force) await backups.take('before-erase');
    return erasure.eraseSubject(input, ctx);
  };
}
