import { copyFileSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { EventBody } from '../../commands/decider.js';
import { ValidationError } from '../../events/errors.js';
import type { EventLog } from '../../events/log/event-log.js';
import type { SqliteDatabase } from '../../events/log/sqlite-database.js';
import { streams } from '../../events/streams.js';
import type { Environment } from '../clock.js';
import { recordEvent } from '../system-events.js';
import { offTheLoop } from './off-the-loop.js';
import { liveCacheKeys, shredBackups } from './shred-backup.js';
import { backupPaths, BackupError, checkBackup, readManifests, removeUnfinished, sha256File, writeManagedBackup, writeManifest, type BackupManifest } from './files.js';

export interface ManagedBackupsDeps {
  readonly db: SqliteDatabase;
  readonly log: EventLog;
  readonly env: Environment;
  readonly dir: string;
  readonly keepDays: number;
  readonly packageVersion: string;
  readonly schemaVersion: () => number;
}

const dayMs = 86_400_000;
export const backupsActor = 'system:backups';

/** A readable, sortable id: the time and the reason, made unique in `dir`. */
export function newBackupId(dir: string, at: Date, reason: string): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const base = `${stamp}-${reason.replace(/[^a-z0-9-]+/gi, '-')}`;
  const taken = new Set(readManifests(dir).map((m) => m.backupId));
  let id = base;
  for (let n = 2; taken.has(id); n += 1) id = `${base}-${n}`;
  return id;
}

export function takenBody(m: BackupManifest, path: string): EventBody {
  return {
    type: 'BackupTaken',
    schemaVersion: 2,
    data: { backupId: m.backupId, path, position: m.position, bytes: m.bytes, sha256: m.sha256, reason: m.reason, managed: true, contents: 'log', verified: true },
  };
}

/**
 * The engine's own backups (ADR 29), in `dir`: taken before risky work, listed from their
 * manifests (a restored log does not know the backups taken after it), pruned after `keepDays`
 * (the newest stays), shredded when a subject is erased, checked again before a restore.
 */
export function createManagedBackups(deps: ManagedBackupsDeps) {
  const { dir } = deps;
  const record = (body: EventBody) => recordEvent(deps.log, deps.env, backupsActor, streams.backups, body);

  async function take(reason: string): Promise<BackupManifest> {
    mkdirSync(dir, { recursive: true });
    const at = deps.env.now();
    const backupId = newBackupId(dir, at, reason);
    // The head of the log in this file (on a shared log, ADR 27, the file holds none of it: 0).
    const position = String((deps.db.prepare('SELECT coalesce(max(global_position), 0) AS n FROM events').get() as { n: number }).n);
    const manifest = await writeManagedBackup(deps.db, dir, {
      backupId, reason, takenAt: at.toISOString(), position, packageVersion: deps.packageVersion, schemaVersion: deps.schemaVersion(),
    });
    await record(takenBody(manifest, backupPaths(dir, backupId).db));
    return manifest;
  }

  async function prune(now: Date = deps.env.now()): Promise<string[]> {
    const [newest, ...older] = readManifests(dir);
    if (!newest) return [];
    const removed: string[] = [];
    for (const m of older) {
      if (Date.parse(m.takenAt) > now.getTime() - deps.keepDays * dayMs) continue;
      const paths = backupPaths(dir, m.backupId);
      // On libuv's threads: deleting a backup the size of the log frees its extents in the calling thread (snapshot.ts).
      await rm(paths.db, { force: true });
      await rm(paths.manifest, { force: true });
      await record({ type: 'BackupRemoved', schemaVersion: 1, data: { backupId: m.backupId, reason: `older than ${deps.keepDays} days` } });
      removed.push(m.backupId);
    }
    return removed;
  }

  function find(backupId: string): BackupManifest {
    const found = readManifests(dir).find((m) => m.backupId === backupId);
    // A name the caller gave that is not there is bad input (the CLI exits 2), not a failed backup.
    if (!found) throw new ValidationError('backup-id', `no managed backup ${backupId} in ${dir}`);
    return found;
  }

  /**
   * Erasure's last step, in every managed backup: the subject's keys are deleted there too, and
   * every cached vector the live cache no longer holds (the erased texts' among them: their keys
   * cannot be computed once the texts read as erased), with secure_delete, then VACUUM unless the
   * backup is known clean (a page a balance rebuilt can keep old cell bytes that secure_delete does
   * not reach unless the SQLite build zeroes them, ADR 19). The backups
   * hold no read model, so no plaintext of the subject is left in them; what a killed backup left
   * (which might) is removed first. Idempotent.
   */
  async function shred(subject: { kind: 'user' | 'session' | 'persona'; id: string }): Promise<number> {
    await removeUnfinished(dir);
    const manifests = readManifests(dir);
    const files = manifests.map((m) => backupPaths(dir, m.backupId));
    const paths = files.map((f) => f.db);
    // All of them in one thread, which reads the live cache keys once (a thread a backup cost 0.1 s each at 10k).
    const keysDestroyed = await offTheLoop(deps.db, { job: 'shred', store: deps.db.name, paths, subject }, () => shredBackups(liveCacheKeys(deps.db), paths, subject));
    for (const [i, m] of manifests.entries()) {
      const { db: path, manifest } = files[i] as ReturnType<typeof backupPaths>;
      const sha256 = await sha256File(path);
      await writeManifest(manifest, { ...m, sha256, bytes: statSync(path).size });
      await record({ type: 'BackupShredded', schemaVersion: 1, data: { backupId: m.backupId, subject, keysDestroyed: keysDestroyed[i] ?? 0, sha256 } });
    }
    return manifests.length;
  }

  return {
    dir,
    take,
    prune,
    find,
    shred,
    list: (): BackupManifest[] => readManifests(dir),
    last: (): BackupManifest | undefined => readManifests(dir)[0],
    /** Checks a backup against its manifest (sha256) and its own chain before it replaces anything. */
    async verify(backupId: string): Promise<BackupManifest> {
      const m = find(backupId);
      const path = backupPaths(dir, backupId).db;
      if ((await sha256File(path)) !== m.sha256) throw new BackupError(`backup ${backupId} changed since it was written (sha256 differs from its manifest)`);
      await checkBackup(path, BigInt(m.position));
      return m;
    },
  };
}

export type ManagedBackups = ReturnType<typeof createManagedBackups>;

/** Puts a backup's file in place of the store's (closed) file; the old WAL goes, the vector snapshots are rebuilt from the log. */
export function replaceStoreFile(backupFile: string, storeFile: string, vectorsDir: string): void {
  const tmp = `${storeFile}.restoring`;
  copyFileSync(backupFile, tmp);
  for (const suffix of ['-wal', '-shm']) rmSync(`${storeFile}${suffix}`, { force: true });
  renameSync(tmp, storeFile);
  rmSync(vectorsDir, { recursive: true, force: true });
}
