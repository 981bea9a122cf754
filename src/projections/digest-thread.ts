import { parentPort, workerData } from 'node:worker_threads';
import { digestFromFile, type DigestPlan } from './digest.js';

// Runs in a worker thread: one generation's digest, read and hashed off the event loop (issue 17).
try {
  const { digest, position } = digestFromFile(workerData as DigestPlan);
  parentPort?.postMessage({ ok: true, digest, position: position.toString() });
} catch (error) {
  parentPort?.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
}
