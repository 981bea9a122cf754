import { workerData } from 'node:worker_threads';
import { answerOnce } from '../../events/one-shot-thread.js';
import { copyLogOfFile } from './copy-log.js';
import { shredBackupsOfFile } from './shred-backup.js';

export type BackupJob =
  | { readonly job: 'copy'; readonly store: string; readonly path: string }
  | { readonly job: 'shred'; readonly store: string; readonly paths: readonly string[]; readonly subject: { readonly kind: string; readonly id: string } };

// Runs in a worker thread: a managed backup's copy or shred, off the event loop (issue 17).
const job = workerData as BackupJob;
answerOnce(() => (job.job === 'copy' ? copyLogOfFile(job.store, job.path) : shredBackupsOfFile(job.store, job.paths, job.subject)));
