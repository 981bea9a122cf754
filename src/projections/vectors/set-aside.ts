import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { SqliteDatabase } from '../../events/log/sqlite-database.js';

/** A snapshot file that could not be trusted, moved aside (never deleted) and rebuilt from the log. */
export interface SetAsideSnapshot {
  readonly projection: string;
  readonly generation: number;
  /** The snapshot's file name in the vectors folder, and the name it was moved to. */
  readonly file: string;
  readonly movedTo: string | null;
  readonly reason: string;
  readonly at: string;
}

interface Row {
  projection: string;
  generation: number;
  file: string;
  moved_to: string | null;
  reason: string;
  at: string;
}

/** The first `<file>.damaged-<n>` not taken yet. */
const freeName = (path: string): string => {
  for (let n = 1; ; n += 1) if (!existsSync(`${path}.damaged-${n}`)) return `${path}.damaged-${n}`;
};

/**
 * Where set-aside snapshots are written down, beside the store's other bookkeeping (not a
 * projection: no event makes these rows, a replay never touches them), for `status` to show.
 */
export function createSetAsideLog(db: SqliteDatabase, now: () => Date) {
  db.exec(`CREATE TABLE IF NOT EXISTS snapshot_set_asides (
    id INTEGER PRIMARY KEY, projection TEXT NOT NULL, generation INTEGER NOT NULL,
    file TEXT NOT NULL, moved_to TEXT, reason TEXT NOT NULL, at TEXT NOT NULL)`);
  const insert = db.prepare('INSERT INTO snapshot_set_asides (projection, generation, file, moved_to, reason, at) VALUES (?, ?, ?, ?, ?, ?)');
  const latest = db.prepare<[string, number], Row>('SELECT * FROM snapshot_set_asides WHERE projection = ? ORDER BY id DESC LIMIT ?');
  // The newest record of that name: a name freed by a deletion is given to the next damaged copy.
  const noteDeleted = db.prepare<[string]>(
    "UPDATE snapshot_set_asides SET reason = reason || '; the copy was deleted by an erasure' WHERE id = (SELECT max(id) FROM snapshot_set_asides WHERE moved_to = ?)",
  );
  return {
    /** Moves the damaged file aside and records why; a file that cannot be moved is recorded as such, and later overwritten. */
    setAside(projection: string, generation: number, path: string, reason: string): SetAsideSnapshot {
      let movedTo: string | null = freeName(path);
      let why = reason;
      try {
        renameSync(path, movedTo);
      } catch (error) {
        why = `${reason}; it could not be moved aside (${(error as Error).message})`;
        movedTo = null;
      }
      const entry: SetAsideSnapshot = { projection, generation, file: basename(path), movedTo: movedTo && basename(movedTo), reason: why, at: now().toISOString() };
      insert.run(projection, generation, entry.file, entry.movedTo, entry.reason, entry.at);
      return entry;
    },
    /**
     * Deletes the set-aside copies of the snapshots named `<prefix>-g<n>.snap` in `dir`, noting it
     * in their records: a damaged copy still holds the vectors and pending keys of its time, so an
     * erasure may not leave it (ADR 19). Returns the files deleted.
     */
    shred(dir: string, prefix: string): string[] {
      const copy = (name: string): boolean => name.startsWith(`${prefix}-g`) && /^\d+\.snap\.damaged-\d+$/.test(name.slice(prefix.length + 2));
      const names = readdirSync(dir).filter(copy);
      for (const name of names) {
        rmSync(join(dir, name), { force: true });
        noteDeleted.run(name);
      }
      return names;
    },
    /** The projection's most recent set-asides, newest first. */
    latest: (projection: string, limit = 5): SetAsideSnapshot[] =>
      latest.all(projection, limit).map((r) => ({ projection: r.projection, generation: r.generation, file: r.file, movedTo: r.moved_to, reason: r.reason, at: r.at })),
  };
}
