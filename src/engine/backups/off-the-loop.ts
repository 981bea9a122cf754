import type { SqliteDatabase } from '../../events/log/sqlite-database.js';
import { onThreadOnce } from '../../events/one-shot-thread.js';
import { threadScript } from '../../events/thread-script.js';
import type { BackupJob } from './backup-thread.js';

/**
 * A backup's whole-file work (the log's copy, a shred) on a thread with its own connections: on the
 * engine's connection it held the event loop in one step (the copy 735 ms at 10k memories, seconds
 * at 100k, before every erasure; issue 17). `here` does it on this thread when no thread script is
 * built or the store has no file another connection could open.
 */
export async function offTheLoop<T>(db: SqliteDatabase, job: BackupJob, here: () => T): Promise<T> {
  const script = db.memory ? null : threadScript(import.meta.url, 'backup-thread.js');
  return script ? onThreadOnce<T>(script, job, { stopped: 'the backup thread' }) : here();
}
