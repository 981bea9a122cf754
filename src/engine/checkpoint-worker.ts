import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { engineThreadScript } from './thread-script.js';
import { walIndexReader, type WalFrames } from './wal-index.js';

// Loaded when the WAL first needs a checkpoint: a CLI call that writes little never starts a thread (ADR 26).
const lazyRequire = createRequire(import.meta.url);

/** SQLite's own default: the engine's connection checkpoints past this many WAL pages when no thread does. */
export const inThreadPages = 1000;

export interface CheckpointerOptions {
  /** WAL bytes past which the thread checkpoints (default 4 MiB, about SQLite's 1,000 pages). */
  readonly thresholdBytes?: number;
  /** How often the WAL's size is looked at (default 100 ms). */
  readonly intervalMs?: number;
  /**
   * WAL pages past which the engine's connection checkpoints itself (default 262,144: 1 GiB). Only a
   * reader's snapshot holds the thread back, and it holds the engine's checkpoint back as much (ADR 32).
   */
  readonly boundPages?: number;
  /** WAL bytes past which `bounded()` holds a writer until the WAL has been checkpointed back (default 64 MiB). */
  readonly restartBytes?: number;
}

/**
 * WAL checkpoints off the event loop (issue 17, ADR 32). SQLite checkpoints in the connection whose
 * commit takes the WAL past `wal_autocheckpoint` pages: on the engine's connection that is the
 * event loop's thread, which then copies pages into the file and waits for its fsync (pauses of
 * about 60 ms at 10k memories; a fifth of an import's wall time). Here a worker thread with a
 * connection of its own runs PASSIVE checkpoints (no writer or reader waits for them) whenever the
 * WAL has passed `thresholdBytes`, and the engine's connection checkpoints only past `boundPages`,
 * a bound on the WAL should the thread fall behind; if the thread fails, SQLite's own rule is back.
 * Null for a store with no file a second connection could open (or no built thread script).
 */
export function createCheckpointer(db: SqliteDatabase, options: CheckpointerOptions = {}) {
  const script = engineThreadScript('checkpoint-thread.js');
  if (db.memory || !existsSync(db.name) || !script) return null;
  const thresholdBytes = options.thresholdBytes ?? 4 * 1024 * 1024;
  const wal = `${db.name}-wal`;
  db.pragma(`wal_autocheckpoint = ${options.boundPages ?? 262_144}`);
  let worker: Worker | null = null;
  let running: Promise<void> | null = null;
  let done: (() => void) | null = null;
  let stopped = false;
  let checkpoints = 0;
  // The WAL's frames as of the thread's last checkpoint, for when the wal-index cannot be read.
  let reported: WalFrames = { frames: 0, copied: 0 };
  const walIndex = walIndexReader(db.name);
  const walNow = (): WalFrames => walIndex.read() ?? reported;
  const restartFrames = Math.ceil((options.restartBytes ?? 64 * 1024 * 1024) / (db.pragma('page_size', { simple: true }) as number));
  const finish = (): void => {
    const resolve = done;
    done = null;
    running = null;
    worker?.unref();
    resolve?.();
  };
  const fail = (): void => {
    if (stopped) return;
    stopped = true;
    // Back to SQLite's own rule on the engine's connection.
    if (db.open) db.pragma(`wal_autocheckpoint = ${inThreadPages}`);
    finish();
  };
  const start = (): Worker => {
    const { Worker: Thread } = lazyRequire('node:worker_threads') as typeof import('node:worker_threads');
    const w = new Thread(script, { workerData: { path: db.name } });
    w.on('message', (answer: { ok: boolean; log?: number; checkpointed?: number }) => {
      if (answer.ok) {
        checkpoints += 1;
        reported = { frames: answer.log ?? 0, copied: answer.checkpointed ?? 0 };
      } else fail();
      finish();
    });
    w.on('error', fail);
    w.on('exit', fail);
    return w;
  };
  const walBytes = (): number => {
    try {
      return statSync(wal).size;
    } catch {
      return 0;
    }
  };
  const check = (force = false): void => {
    if (stopped || running || (!force && walBytes() < thresholdBytes)) return;
    worker ??= start();
    worker.ref();
    running = new Promise((resolve) => (done = resolve));
    worker.postMessage('checkpoint');
  };
  const timer = setInterval(() => check(), options.intervalMs ?? 100);
  timer.unref();
  return {
    /** Resolves once no checkpoint of the thread is running (before one of the engine's own, e.g. an erasure's TRUNCATE). */
    idle: (): Promise<void> => running ?? Promise.resolve(),
    /**
     * Resolves at once while the WAL is under `restartBytes`; past it, once a checkpoint made while
     * the caller (a replay, the only writer then) waits has run, so that it can copy every frame and
     * the next write starts the WAL over. Checkpoints made beside a replay's writes never caught up
     * with them: at 100k memories the WAL grew past the 1 GiB bound, where each commit of the
     * engine's connection checkpoints on the event loop's thread (pauses of 100-420 ms). A reader's
     * snapshot (a rebuild's digest thread) keeps a checkpoint from copying every frame: a caller
     * that can wait (`patienceMs`) asks again until one does, or its patience runs out.
     */
    async bounded(patienceMs = 0): Promise<void> {
      const until = performance.now() + patienceMs;
      // Every frame copied: the next write starts the WAL over.
      const held = (): boolean => {
        const wal = walNow();
        return !stopped && wal.frames >= restartFrames && wal.copied < wal.frames;
      };
      while (held()) {
        await running;
        check(true);
        await running;
        if (!held() || performance.now() >= until) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    /** Checkpoints the thread completed (tests, status). */
    count: (): number => checkpoints,
    /** Stops the thread after its checkpoint in flight; the engine's connection checkpoints by SQLite's rule again. */
    async close(): Promise<void> {
      clearInterval(timer);
      await running;
      stopped = true;
      const w = worker;
      worker = null;
      await w?.terminate();
      walIndex.close();
      if (db.open) db.pragma(`wal_autocheckpoint = ${inThreadPages}`);
    },
  };
}
