import { openDatabase } from '../../events/log/sqlite-database.js';
import { createSqliteEventLog } from '../../events/log/sqlite-event-log.js';
import { streams } from '../../events/streams.js';
import type { Environment } from '../clock.js';
import { recordEvent } from '../system-events.js';
import { BackupError, backupPaths, type BackupManifest } from './files.js';
import { backupsActor, replaceStoreFile, type ManagedBackups } from './managed.js';

export interface RestoreReceipt {
  readonly backupId: string;
  /** The copy of the store as it was just before: restoring it undoes this restore. */
  readonly safetyBackupId: string;
  /** The backup's log head: the restored store's log ends here, then BackupRestored. */
  readonly position: string;
}

/**
 * The second half of `restore-backup`, on a closed store: the backup's file takes the store's
 * place, and BackupRestored is its first new event. The read models and vector snapshots are not
 * in a backup: the next open replays them from the log (ADR 29).
 */
export async function putBackupInPlace(
  store: { readonly storeFile: string; readonly vectorsDir: string; readonly backupsDir: string },
  backup: BackupManifest,
  safetyBackupId: string,
  env: Environment,
): Promise<RestoreReceipt> {
  replaceStoreFile(backupPaths(store.backupsDir, backup.backupId).db, store.storeFile, store.vectorsDir);
  const db = openDatabase(store.storeFile);
  try {
    const log = createSqliteEventLog(db);
    await recordEvent(log, env, backupsActor, streams.backups, {
      type: 'BackupRestored',
      schemaVersion: 1,
      data: { backupId: backup.backupId, safetyBackupId, position: backup.position },
    });
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
  return { backupId: backup.backupId, safetyBackupId, position: backup.position };
}

export interface RestoreDeps {
  readonly storeFile: string;
  readonly vectorsDir: string;
  readonly backupsDir: string;
  /** The log is shared (EventStoreDB): its events are not in this file, so a backup of it cannot restore them. */
  readonly shared: boolean;
  readonly backups: ManagedBackups;
  readonly env: Environment;
  /** Closes the engine (its scheduler first). */
  readonly close: () => Promise<void>;
}

/**
 * `restore-backup`: checks the backup, backs up the store as it is, closes the engine, puts the
 * backup in place and records BackupRestored. The next open replays the read models.
 */
export async function restoreManagedBackup(deps: RestoreDeps, backupId: string): Promise<RestoreReceipt> {
  if (deps.shared) throw new BackupError('restore-backup needs the log in the store file (log.kind sqlite); a shared log is restored on its server');
  const backup = await deps.backups.verify(backupId);
  const safety = await deps.backups.take('before-restore');
  await deps.close();
  return putBackupInPlace(deps, backup, safety.backupId, deps.env);
}
