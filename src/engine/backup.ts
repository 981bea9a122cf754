import type { EventLog } from '../events/log/event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { streams } from '../events/streams.js';
import { writeThrough } from '../replay/output/atomic.js';
import type { Environment } from './clock.js';
import { fileDigest } from './backups/files.js';
import { recordEvent } from './system-events.js';

export interface BackupReceipt {
  readonly backupId: string;
  readonly path: string;
  /** The log's head when the copy started: the copy holds at least this much of the log. */
  readonly position: bigint;
  readonly bytes: number;
  readonly sha256: string;
}

/**
 * An online copy of the whole SQLite file (SQLite's backup API, consistent while writers go on),
 * recorded as BackupTaken. It holds sealed events and whatever the read models hold at that time:
 * a copy taken before an erasure still has the erased plaintext (ADR 19). `path` is a checked
 * real path (`outputs.checkFile`); the copy goes to a temporary file beside it, synced, then renamed.
 */
export async function takeBackup(db: SqliteDatabase, log: EventLog, env: Environment, actor: string, path: string, force = false): Promise<BackupReceipt> {
  const position = await log.headPosition();
  await writeThrough(path, async (tmp) => {
    await db.backup(tmp);
  }, { flag: 'path', force });
  const receipt = { backupId: env.newId(), path, position, ...(await fileDigest(path)) };
  await recordEvent(log, env, actor, streams.backups, {
    type: 'BackupTaken',
    schemaVersion: 2,
    data: { ...receipt, position: position.toString(), reason: 'requested', managed: false, contents: 'full', verified: false },
  });
  return receipt;
}
