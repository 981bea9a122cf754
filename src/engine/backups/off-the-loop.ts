import { createRequire } from 'node:module';
import type { SqliteDatabase } from '../../events/log/sqlite-database.js';
import { threadScript } from '../../events/thread-script.js';
import type { BackupJob } from './backup-thread.js';

// worker_threads is loaded at the first backup: a command that takes none never loads it (ADR 26).
const lazyRequire = createRequire(import.meta.url);

/**
 * A backup's whole-file work (the log's copy, a shred) on a thread with its own connections: on the
 * engine's connection it held the event loop in one step (the copy 735 ms at 10k memories, seconds
 * at 100k, before every erasure; issue 17). `here` does it on this thread when no thread script is
 * built or the store has no file another connection could open.
 */
export async function offTheLoop<T>(db: SqliteDatabase, job: BackupJob, here: () => T): Promise<T> {
  const script = db.memory ? null : threadScript(import.meta.url, 'backup-thread.js');
  if (!script) return here();
  const { Worker } = lazyRequire('node:worker_threads') as typeof import('node:worker_threads');
  const worker = new Worker(script, { workerData: job });
  try {
    return await new Promise<T>((resolve, reject) => {
      worker.once('message', (m: { ok: true; value: T } | { ok: false; message: string }) => (m.ok ? resolve(m.value) : reject(new Error(m.message))));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the backup thread stopped (exit ${code})`)));
    });
  } finally {
    void worker.terminate();
  }
}
