import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../events/log/sqlite-database.js';

// Runs in a worker thread: the store's WAL checkpoints, on a connection of its own, so that the
// engine's thread neither copies the pages nor waits for their fsync (ADR 32).
const db = openDatabase((workerData as { path: string }).path);
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * A writer reuses the WAL from its start only once every frame is in the main file. One PASSIVE
 * checkpoint every 100 ms never saw that under a replay that commits between every turn of the
 * loop: the WAL grew to 130 MB at 10k memories, past the engine's bound, and the engine's own
 * connection then checkpointed on the event loop (100-150 ms pauses). So checkpoints follow each
 * other, a few ms apart, until the frames are all copied (the replay's pause at a turn of the loop
 * is enough), for at most about a second a message.
 */
parentPort?.on('message', () => {
  try {
    for (let round = 0; round < 200; round += 1) {
      // PASSIVE: as many frames as no reader still needs, without waiting for any reader or writer.
      const [result] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
      if (!result || result.log <= 0 || result.checkpointed >= result.log) break;
      Atomics.wait(pause, 0, 0, 5);
    }
    parentPort?.postMessage({ ok: true });
  } catch {
    parentPort?.postMessage({ ok: false });
  }
});
