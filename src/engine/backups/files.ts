import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openReadOnly, type SqliteDatabase } from '../../events/log/sqlite-database.js';
import { verifyHashChain } from '../../events/log/verify-chain.js';
import { markPageGaps } from '../page-gaps.js';
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
 * Copies the kept tables of the open store into a new file at `path`, in one read transaction (one
 * snapshot of the log): their schema as sqlite_master has it (indexes too), their rows, their
 * AUTOINCREMENT counters (a key id is never reused, even after a restore) and the schema version.
 * Read models are never copied, so nothing is dropped afterwards and no VACUUM rewrites the copy
 * (issue 17: the backup before an erasure cost two copies of the whole store and a VACUUM).
 */
function copyLog(db: SqliteDatabase, path: string): void {
  db.prepare('ATTACH DATABASE ? AS backup').run(path);
  try {
    db.pragma('backup.journal_mode = DELETE');
    db.pragma('backup.secure_delete = ON');
    db.transaction(() => {
      const schema = db
        .prepare(`SELECT type, name, tbl_name AS tableName, sql FROM main.sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'index') ORDER BY type = 'index'`)
        .all() as { type: string; name: string; tableName: string; sql: string }[];
      const kept = schema.filter((entry) => keptTables.includes(entry.tableName));
      for (const entry of kept) db.exec(entry.sql.replace(/^CREATE (TABLE|UNIQUE INDEX|INDEX) /i, (m) => `${m}backup.`));
      for (const entry of kept) if (entry.type === 'table') db.exec(`INSERT INTO backup."${entry.name}" SELECT * FROM main."${entry.name}"`);
      const counters = db.prepare(`SELECT 1 FROM main.sqlite_master WHERE name = 'sqlite_sequence'`).get() !== undefined;
      if (counters && db.prepare(`SELECT 1 FROM backup.sqlite_master WHERE name = 'sqlite_sequence'`).get() !== undefined) {
        db.exec('DELETE FROM backup.sqlite_sequence');
        db.exec(`INSERT INTO backup.sqlite_sequence (name, seq) SELECT name, seq FROM main.sqlite_sequence WHERE name IN (SELECT value FROM json_each('${JSON.stringify(keptTables)}'))`);
      }
      db.pragma(`backup.user_version = ${Number(db.pragma('main.user_version', { simple: true }))}`);
      // A new file: clean if this SQLite zeroes page gaps, whatever the store's own mark says.
      markPageGaps(db, true, 'backup');
    })();
  } finally {
    db.exec('DETACH DATABASE backup');
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
    copyLog(db, tmp);
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
