import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase, type SqliteDatabase } from '../../events/log/sqlite-database.js';
import { verifyHashChain } from '../../events/log/verify-chain.js';
import { commitTemporary, writeThrough } from '../../replay/output/atomic.js';

/**
 * The tables a managed backup keeps: the log, its keys, the store's secrets and meta, the
 * embedding cache (vectors, no text) and the remote erasures this node has applied (ids only). Everything else is a read model, rebuilt from the log on
 * restore, so an erasure never has plaintext to chase in a backup (ADR 29). A table added later
 * that is not derived from the log must be named here.
 */
export const keptTables: readonly string[] = ['events', 'streams', 'sealed_keys', 'sealed_keys_head', 'subject_keys', 'store_secrets', 'store_meta', 'embedding_cache', 'erasures_applied'];

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
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Drops every table but the kept ones (virtual tables first: their shadow tables go with them), then compacts. */
function keepLogOnly(path: string): void {
  const db = openDatabase(path, { synchronous: 'FULL' });
  try {
    const tables = (virtual: boolean) =>
      (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND (sql LIKE 'CREATE VIRTUAL%') = ?`).pluck().all(virtual ? 1 : 0) as string[])
        .filter((name) => !keptTables.includes(name));
    for (const name of tables(true)) db.exec(`DROP TABLE "${name}"`);
    for (const name of tables(false)) db.exec(`DROP TABLE "${name}"`);
    db.exec('VACUUM');
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
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
    await db.backup(tmp);
    keepLogOnly(tmp);
    const { chainHeadHash } = await checkBackup(tmp, BigInt(info.position));
    const manifest: BackupManifest = {
      format: 'livingmemory-backup', ...info, contents: 'log', bytes: readFileSync(tmp).length, sha256: await sha256File(tmp), chainHeadHash,
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
export async function checkBackup(path: string, position: bigint): Promise<{ chainHeadHash: string }> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const hasChain = db.prepare(`SELECT 1 FROM pragma_table_info('events') WHERE name = 'hash'`).get() !== undefined;
    const head = BigInt((db.prepare('SELECT coalesce(max(global_position), 0) AS n FROM events').get() as { n: number }).n);
    if (head < position) throw new BackupError(`backup ${path} holds the log up to ${head}, expected at least ${position}`);
    if (!hasChain) return { chainHeadHash: '' };
    const report = await verifyHashChain(db as unknown as SqliteDatabase);
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
export function removeUnfinished(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const names = new Set(readdirSync(dir));
  const left = [...names].filter((n) => n.endsWith('.db.partial') || (n.endsWith('.db') && !names.has(`${n.slice(0, -3)}.json`)));
  left.forEach((n) => rmSync(join(dir, n), { force: true }));
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
