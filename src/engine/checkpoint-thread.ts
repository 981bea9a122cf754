import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../events/log/sqlite-database.js';

// Runs in a worker thread: the store's WAL checkpoints, on a connection of its own, so that the
// engine's thread neither copies the pages nor waits for their fsync (ADR 32).
const db = openDatabase((workerData as { path: string }).path);

parentPort?.on('message', () => {
  try {
    // PASSIVE: as many frames as no reader still needs, without waiting for any reader or writer.
    const [row] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    parentPort?.postMessage({ ok: true, log: row?.log ?? 0, checkpointed: row?.checkpointed ?? 0 });
  } catch {
    parentPort?.postMessage({ ok: false });
  }
});
