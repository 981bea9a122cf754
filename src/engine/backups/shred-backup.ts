import { openDatabase, openReadOnly, type SqliteDatabase } from '../../events/log/sqlite-database.js';
import { scrubPageGaps } from '../page-gaps.js';

export interface ShreddedSubject {
  readonly kind: string;
  readonly id: string;
}

/** The embedding cache rows the live store holds, as `fingerprint hash`: a backup keeps only those. */
export const liveCacheKeys = (db: SqliteDatabase): Set<string> =>
  new Set(db.prepare("SELECT fingerprint || ' ' || content_hash FROM embedding_cache").pluck().all() as string[]);

/**
 * One managed backup's shred: the subject's keys deleted, and every cached vector `live` does not
 * hold, with secure_delete, then the page gaps scrubbed (a VACUUM unless the file is known clean,
 * ADR 19) and the WAL folded back. Returns the keys destroyed.
 */
export function shredBackup(live: ReadonlySet<string>, path: string, subject: ShreddedSubject): number {
  const copy = openDatabase(path, { synchronous: 'FULL' });
  try {
    copy.pragma('secure_delete = ON');
    // A node of a shared log keeps its keys there (ADR 27): its file has no keystore.
    const keystore = copy.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'subject_keys'").get() !== undefined;
    const keysDestroyed = keystore ? copy.prepare('DELETE FROM subject_keys WHERE kind = ? AND subject_id = ?').run(subject.kind, subject.id).changes : 0;
    const rows = copy.prepare('SELECT fingerprint, content_hash AS hash FROM embedding_cache').all() as { fingerprint: string; hash: string }[];
    const drop = copy.prepare('DELETE FROM embedding_cache WHERE fingerprint = ? AND content_hash = ?');
    copy.transaction(() => rows.filter((r) => !live.has(`${r.fingerprint} ${r.hash}`)).forEach((r) => drop.run(r.fingerprint, r.hash)))();
    scrubPageGaps(copy);
    copy.pragma('wal_checkpoint(TRUNCATE)');
    copy.pragma('journal_mode = DELETE');
    return keysDestroyed;
  } finally {
    copy.close();
  }
}

/** Every backup at `paths` shredded against one reading of the live cache keys; the keys destroyed in each. */
export const shredBackups = (live: ReadonlySet<string>, paths: readonly string[], subject: ShreddedSubject): number[] =>
  paths.map((path) => shredBackup(live, path, subject));

/** The thread's side: the live cache read once, on a connection of its own to the store, then each backup shredded. */
export function shredBackupsOfFile(store: string, paths: readonly string[], subject: ShreddedSubject): number[] {
  const db = openReadOnly(store);
  let live: Set<string>;
  try {
    live = liveCacheKeys(db);
  } finally {
    db.close();
  }
  return shredBackups(live, paths, subject);
}
