import { join, resolve } from 'node:path';
import { createOutputs } from '../outputs.js';
import { openDatabase, zeroesPageGaps, type SqliteDatabase } from '../../events/log/sqlite-database.js';
import { streams } from '../../events/streams.js';
import type { Environment } from '../clock.js';
import type { Config } from '../config.js';
import { openEngineLog, type EngineLog } from '../event-log.js';
import { holdsEvents, migrateStore, readMeta, schemaVersionOf, writeMeta, type Migration } from '../migrations.js';
import { markPageGaps } from '../page-gaps.js';
import { recordEvent } from '../system-events.js';
import { backupPaths, writeManagedBackup, type BackupManifest } from './files.js';
import { backupsActor, createManagedBackups, newBackupId, replaceStoreFile, takenBody, type ManagedBackups } from './managed.js';

export interface OpenedStore extends EngineLog {
  readonly db: SqliteDatabase;
  readonly backups: ManagedBackups;
  readonly storeFile: string;
  readonly vectorsDir: string;
}

export interface OpenStoreOptions {
  readonly env: Environment;
  readonly packageVersion: string;
  readonly migrations?: readonly Migration[];
}

/**
 * Where the managed backups live: `backups.dir`, by default `<dataDir>-backups` beside the data
 * dir. Never inside it (the guard of every output, ADR 24): a backup must survive losing the data
 * dir's contents, and nothing in the data dir is anything but the store.
 */
export function backupsDirOf(config: Config): string {
  const dir = config.backups.dir ?? `${resolve(config.dataDir)}-backups`;
  return createOutputs(config).checkDir(dir, [], { flag: 'backups.dir' });
}

/**
 * Opens the store file: migrates its schema (after the mandatory backup), opens the log `log.kind`
 * names (in the file, or shared in EventStoreDB, ADR 27), and when the package version differs from
 * the last open's, takes a backup and records the change. An empty new store gets neither (nothing
 * to keep), and no event. On a shared log a managed backup holds this node's file only (its secrets,
 * cache and schema); the log itself is backed up on the server (docs/deploy.md).
 */
export async function openStore(config: Config, options: OpenStoreOptions): Promise<OpenedStore> {
  const storeFile = join(config.dataDir, config.databaseFile);
  const vectorsDir = join(config.dataDir, 'vectors');
  const { env } = options;
  const dir = backupsDirOf(config);
  const db = openDatabase(storeFile, { synchronous: config.sqlite.synchronous });
  const rawBackup = async (reason: string): Promise<BackupManifest> => {
    const head = (db.prepare('SELECT coalesce(max(global_position), 0) AS n FROM events').get() as { n: number }).n;
    const at = env.now();
    return writeManagedBackup(db, dir, {
      backupId: newBackupId(dir, at, reason), reason, takenAt: at.toISOString(), position: String(head),
      packageVersion: readMeta(db, 'packageVersion') ?? 'unknown', schemaVersion: schemaVersionOf(db),
    });
  };
  // A file that never held an event has no deleted content in its pages (ADR 19, page gaps).
  const fresh = schemaVersionOf(db) === 0 && !holdsEvents(db);
  let migrated;
  try {
    migrated = await migrateStore<BackupManifest>(db, {
      ...(options.migrations ? { migrations: options.migrations } : {}),
      backup: () => rawBackup('before-migration'),
      describe: (b) => b.backupId,
      restore: async (b) => {
        db.close();
        replaceStoreFile(backupPaths(dir, b.backupId).db, storeFile, vectorsDir);
      },
    });
  } catch (error) {
    if (db.open) db.close();
    throw error;
  }
  let opened: EngineLog;
  try {
    opened = await openEngineLog(config, db);
  } catch (error) {
    db.close();
    throw error;
  }
  const { log } = opened;
  const backups = createManagedBackups({
    db, log, env, dir, keepDays: config.backups.keepDays, packageVersion: options.packageVersion, schemaVersion: () => schemaVersionOf(db),
  });
  const record = (body: Parameters<typeof recordEvent>[4]) => recordEvent(log, env, backupsActor, streams.store, body);
  if (migrated?.backup) {
    const b = migrated.backup;
    await recordEvent(log, env, backupsActor, streams.backups, takenBody(b, backupPaths(dir, b.backupId).db));
    await record({ type: 'StoreMigrated', schemaVersion: 1, data: { from: migrated.from, to: migrated.to, migrations: [...migrated.applied], backupId: b.backupId } });
  }
  const previous = readMeta(db, 'packageVersion');
  // Another version, or a SQLite that leaves gaps, may have written pages: not known clean until a VACUUM.
  if (fresh) markPageGaps(db, true);
  else if (previous !== options.packageVersion || !zeroesPageGaps(db)) markPageGaps(db, false);
  if (previous !== options.packageVersion) {
    if ((await log.headPosition()) > 0n) {
      const backupId = migrated?.backup?.backupId ?? (await backups.take('version-change')).backupId;
      await record({ type: 'StoreVersionChanged', schemaVersion: 1, data: { from: previous ?? null, to: options.packageVersion, backupId } });
    }
    writeMeta(db, 'packageVersion', options.packageVersion);
    await backups.prune();
  }
  return { ...opened, db, backups, storeFile, vectorsDir };
}
