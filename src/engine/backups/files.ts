import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openReadOnly, type SqliteDatabase } from '../../events/log/sqlite-database.js';
import { verifyHashChain } from '../../events/log/verify-chain.js';
import { copyLogOffTheLoop } from './copy-log.js';
import { commitTemporary, writeThrough } from '../../replay/output/atomic.js';

export { keptTables } from './copy-log.js';

/** What `<id>.json` says about `<id>.db`. */
export interface BackupManifest {
  readonly format: 'livingmemory-backup';
  readonly backupId: string;
  readonly reason: string;
  readonly takenAt: string;
  /** The log's head when the copy started; the copy holds at least this much of the log. */
  readonly position: string;
  readonly packageVersion: string;
  readonly schemaVersion: number;
  readonly contents: 'log';
  readonly bytes: number;
  readonly sha256: string;
  /** The hash chain's head in the copy when it was checked (empty when the store predates the chain). */
  readonly chainHeadHash: string;
}

export class BackupError extends Error {
  override readonly name = 'BackupError';
}

export const backupPaths = (dir: string, backupId: string) => ({ db: join(dir, `${backupId}.db`), manifest: join(dir, `${backupId}.json`) });

export async function sha256File(path: string): Promise<string> {
  return (await fileDigest(path)).sha256;
}

/** A file's size and sha256, read in chunks: a store's file passes 2 GiB (Node's limit on reading one whole) at about 150k memories. */
export async function fileDigest(path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  // 1 MiB reads: twice as fast as the 64 KiB default on a backup of 160 MB (the erasure's shred hashes every backup).
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/**
 * Writes a managed backup of the open store: SQLite's online copy, reduced to the log, checked
 * (opened, hash chain walked, head reached), hashed, then renamed into place with its manifest.
 * A copy that fails its check is deleted and the error names why; nothing half-written remains.
 */
export async function writeManagedBackup(
  db: SqliteDatabase,
  dir: string,
  info: Omit<BackupManifest, 'format' | 'contents' | 'bytes' | 'sha256' | 'chainHeadHash'>,
): Promise<BackupManifest> {
  const paths = backupPaths(dir, info.backupId);
  const tmp = `${paths.db}.partial`;
  mkdirSync(dir, { recursive: true });
  try {
    await copyLogOffTheLoop(db, tmp);
    // Its links prove the copy holds the log's rows; each row's decoding is checked before a restore (verify).
    const { chainHeadHash } = await checkBackup(tmp, BigInt(info.position), { decode: false });
    const manifest: BackupManifest = {
      format: 'livingmemory-backup', ...info, contents: 'log', ...(await fileDigest(tmp)), chainHeadHash,
    };
    // The file first, synced and linked into place; the manifest, which makes it a backup, last.
    commitTemporary(tmp, paths.db, { flag: 'backups.dir' });
    await writeManifest(paths.manifest, manifest);
    return manifest;
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error instanceof BackupError ? error : new BackupError(`backup ${info.backupId} failed: ${(error as Error).message}`);
  }
}

/** Opens a backup file read-only and checks its log: the hash chain, and at least `position` events. */
export async function checkBackup(path: string, position: bigint, options: { decode?: boolean } = {}): Promise<{ chainHeadHash: string }> {
  const db = openReadOnly(path);
  try {
    const hasChain = db.prepare(`SELECT 1 FROM pragma_table_info('events') WHERE name = 'hash'`).get() !== undefined;
    const head = BigInt((db.prepare('SELECT coalesce(max(global_position), 0) AS n FROM events').get() as { n: number }).n);
    if (head < position) throw new BackupError(`backup ${path} holds the log up to ${head}, expected at least ${position}`);
    if (!hasChain) return { chainHeadHash: '' };
    const report = await verifyHashChain(db, options);
    if (!report.ok) throw new BackupError(`backup ${path}: hash chain broken at ${report.firstBreak?.position}: ${report.firstBreak?.detail}`);
    return { chainHeadHash: report.headHash };
  } finally {
    db.close();
  }
}

export async function writeManifest(path: string, manifest: BackupManifest): Promise<void> {
  await writeThrough(path, (tmp) => writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`), { flag: 'backups.dir', force: true });
}

/**
 * Removes what a killed backup left in `dir`: a `.partial` copy (it may still hold read models in
 * clear) and a `.db` whose manifest was never written (not a backup, and never shredded).
 */
export async function removeUnfinished(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const names = new Set(readdirSync(dir));
  const left = [...names].filter((n) => n.endsWith('.db.partial') || (n.endsWith('.db') && !names.has(`${n.slice(0, -3)}.json`)));
  // On libuv's threads, as every deletion of a file the size of the log (managed.ts's prune).
  await Promise.all(left.map((n) => rm(join(dir, n), { force: true })));
  return left;
}

/** Every manifest in `dir`, newest first; files that are not manifests are ignored. */
export function readManifests(dir: string): BackupManifest[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .flatMap((name) => {
      try {
        const parsed = JSON.parse(readFileSync(join(dir, name), 'utf8')) as BackupManifest;
        return parsed.format === 'livingmemory-backup' && existsSync(backupPaths(dir, parsed.backupId).db) ? [parsed] : [];
      } catch {
        return [];
      }
    })
    .sort((a, b) => (a.takenAt < b.takenAt ? 1 : a.takenAt > b.takenAt ? -1 : a.backupId < b.backupId ? 1 : -1));
}
