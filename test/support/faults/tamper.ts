import Database from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Changes one byte of `marker` where the events table stores it in the file: the WAL is
 * checkpointed into the main file first, and only the events table's own pages (from dbstat) are
 * searched, since the projections hold the same text elsewhere in the file.
 */
export function flipOneByteOfEvent(dbFile: string, marker: string, position: number): void {
  const db = new Database(dbFile);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pages = db.prepare(`SELECT pageno FROM dbstat WHERE name = 'events'`).all() as { pageno: number }[];
  db.close();
  // A fresh connection each time: an open one may serve the page from its cache.
  const storedData = (): string => {
    const reader = new Database(dbFile, { readonly: true });
    try {
      return (reader.prepare('SELECT data FROM events WHERE global_position = ?').get(position) as { data: string }).data;
    } finally {
      reader.close();
    }
  };
  const bytes = readFileSync(dbFile);
  const needle = Buffer.from(marker);
  for (const { pageno } of pages) {
    const start = (pageno - 1) * pageSize;
    const page = bytes.subarray(start, start + pageSize);
    // Every occurrence: other events of the same write carry the marker too.
    for (let at = page.indexOf(needle); at >= 0; at = page.indexOf(needle, at + 1)) {
      // 'x' -> 'y' at the marker's last byte: the JSON stays valid, only the hash can tell.
      bytes[start + at + needle.length - 1] = 'y'.charCodeAt(0);
      writeFileSync(dbFile, bytes);
      // A stale copy left in a page's free space would change nothing: insist the row itself changed.
      if (storedData().includes(marker.replace(/x$/, 'y'))) return;
      bytes[start + at + needle.length - 1] = 'x'.charCodeAt(0);
      writeFileSync(dbFile, bytes);
    }
  }
  throw new Error(`marker ${marker} not found in the rows of the events table`);
}
