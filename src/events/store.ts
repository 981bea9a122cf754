import { z } from 'zod';
import { defineEvent } from './define.js';
import { idSchema } from './metadata.js';

const position = z.string().regex(/^\d+$/, 'must be a non-negative integer string');
const subject = z.object({ kind: z.enum(['user', 'session', 'persona']), id: idSchema }).strict();

/** A managed backup was deleted (older than `backups.keepDays`, or on request). */
export const backupRemoved = defineEvent('BackupRemoved', 1, () => z.object({ backupId: idSchema, reason: z.string().min(1).max(200) }));

/**
 * The store was replaced by a backup: this event is the first one after the backup's own log.
 * `safetyBackupId` is the copy of the store taken just before, so the restore can be undone.
 */
export const backupRestored = defineEvent(
  'BackupRestored',
  1,
  () => z.object({ backupId: idSchema, safetyBackupId: idSchema, position }),
);

/** An erased subject's key was destroyed in a managed backup too (its content there reads as erased). */
export const backupShredded = defineEvent(
  'BackupShredded',
  1,
  () => z.object({ backupId: idSchema, subject, keysDestroyed: z.number().int().min(0), sha256: z.string() }),
);

/** The store was opened by another package version than last time; `backupId` is the copy taken first. */
export const storeVersionChanged = defineEvent(
  'StoreVersionChanged',
  1,
  () => z.object({ from: z.string().min(1).nullable(), to: z.string().min(1), backupId: idSchema.nullable() }),
);

/** The SQLite schema went from version `from` to `to`, after the mandatory backup `backupId`. */
export const storeMigrated = defineEvent(
  'StoreMigrated',
  1,
  () => z.object({
    from: z.number().int().min(0),
    to: z.number().int().min(1),
    migrations: z.array(z.string().min(1)).min(1),
    backupId: idSchema.nullable(),
  }),
);

export const storeEvents = [backupRemoved, backupRestored, backupShredded, storeVersionChanged, storeMigrated] as const;
