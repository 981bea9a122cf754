import { openDatabase } from '../../events/log/sqlite-database.js';
import { createSqliteEventLog } from '../../events/log/sqlite-event-log.js';
import { streams } from '../../events/streams.js';
import type { Environment } from '../clock.js';
import { recordEvent } from '../system-events.js';
import { backupPaths, type BackupManifest } from './files.js';
import { backupsActor, replaceStoreFile } from './managed.js';

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
