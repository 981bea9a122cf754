import { fsPromises as files } from '../lazy.js';
import { syncLevel, withoutFsync } from './durability.js';
import type { SqliteDatabase } from './sqlite-database.js';

/** Flushes a file's written data to the disk (fdatasync), off the event loop's thread. */
export type FileSync = (path: string) => Promise<void>;

const datasync: FileSync = async (path) => {
  const file = await files()
    .open(path, 'r')
    .catch((error: { code?: string }) => {
      // The last connection's close checkpointed every frame into the synced main file and removed the WAL.
      if (error.code === 'ENOENT') return null;
      throw error;
    });
  if (!file) return;
  try {
    await file.datasync();
  } finally {
    await file.close();
  }
};

/** Raised by every append after the WAL could not be synced: the disk may have dropped acknowledged-looking writes. */
export class WalSyncError extends Error {
  constructor(cause: unknown) {
    super(`the log could not sync its WAL file (${cause instanceof Error ? cause.message : String(cause)}): no append is acknowledged any more; restart the engine`);
    this.name = 'WalSyncError';
  }
}

/**
 * The log's commits at synchronous=FULL without SQLite's fsync on the event loop's thread (issue 17:
 * an append after a rebuild waited 150 ms there for the projections' unsynced WAL frames). A commit
 * runs at NORMAL, then `synced()` has libuv's pool fdatasync the WAL file; the append is
 * acknowledged only after it. In WAL mode a frame is lost only with every frame after it, so an
 * unsynced commit seen meanwhile (a catch-up that starts during the sync) is lost, if ever, with
 * what was built on it. Commits made while a sync runs share the next one (group commit). A sync
 * that fails stops the log's appends for good: Linux may have dropped the dirty pages it reports.
 */
export function createWalSync(db: SqliteDatabase, sync: FileSync = datasync) {
  // An in-memory store has no file, and a store opened at NORMAL asked for no fsync per commit.
  const deferred = !db.memory && String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal' && syncLevel(db) >= 2;
  const wal = `${db.name}-wal`;
  let broken: WalSyncError | null = null;
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  const start = (): Promise<void> => {
    const settled = sync(wal)
      .catch((error: unknown) => {
        throw (broken ??= new WalSyncError(error));
      })
      .finally(() => {
        if (running === settled) running = null;
      });
    running = settled;
    return settled;
  };
  return {
    /** Runs a commit of the log (its own transaction); without the fsync when `synced()` will do it. */
    commit<T>(work: () => T): T {
      if (broken) throw broken;
      return deferred ? withoutFsync(db, work) : work();
    },
    /** Resolves once every commit made before the call is on the disk. */
    synced(): Promise<void> {
      if (!deferred) return Promise.resolve();
      if (broken) return Promise.reject(broken);
      // A sync in flight may have started before this commit: the next one starts after it.
      if (!running) return start();
      queued ??= running.then(
        () => ((queued = null), start()),
        (error: unknown) => ((queued = null), Promise.reject(error)),
      );
      return queued;
    },
  };
}
