import { parentPort, workerData } from 'node:worker_threads';
import { copyLogOfFile } from './copy-log.js';

// Runs in a worker thread: a managed backup's copy of the log, off the event loop (issue 17).
try {
  const { store, path } = workerData as { store: string; path: string };
  copyLogOfFile(store, path);
  parentPort?.postMessage({ ok: true });
} catch (error) {
  parentPort?.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
}
