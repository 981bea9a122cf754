import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// Runs the compiled CLI as a user would; `npm test` builds dist/ before the suite starts.
const cli = join(process.cwd(), 'dist/src/interfaces/cli/main.js');
const dataDir = mkdtempSync(join(tmpdir(), 'lmem-verify-'));
const dbFile = join(dataDir, 'livingmemory.db');
const lmem = (args: string[]) => {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, LIVINGMEMORY_DATA_DIR: dataDir } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/**
 * Changes one byte of `marker` where the events table stores it in the file: the WAL is
 * checkpointed into the main file first, and only the events table's own pages (from dbstat) are
 * searched, since the projections hold the same text elsewhere in the file.
 */
function flipOneByteOfEvent(marker: string, position: number): void {
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

describe('lmem verify', () => {
  it('passes a sound store, then finds one byte changed in an event at its position', () => {
    // The text is sealed in the log (ADR 19); the session id is stored in clear, in each event of the write.
    const added = JSON.parse(lmem(['add', 'The door code is 1234', '--session', 'tamper-marker-x', '--json']).stdout) as { position: number };
    lmem(['add', 'Bob rides his bike']);
    const sound = lmem(['verify']);
    expect(sound.code, sound.stderr).toBe(0);
    expect(sound.stdout).toMatch(/log: ok, \d+ events, head hash \d+:[0-9a-f]{64}/);
    expect(sound.stdout).toMatch(/verify: ok$/m);

    flipOneByteOfEvent('tamper-marker-x', added.position);
    const tampered = lmem(['verify']);
    expect(tampered.code, tampered.stderr).toBe(3);
    expect(tampered.stdout).toContain(`log: BROKEN at position ${added.position} (hash-mismatch)`);
    const report = JSON.parse(lmem(['verify', '--json']).stdout) as { chain: unknown; projections: { status: string }[] };
    expect(report).toMatchObject({ ok: false, chain: { checked: added.position - 1, firstBreak: { position: added.position, kind: 'hash-mismatch' } } });
    // The projection that applied the event still holds it as written; a replay of the changed log does not.
    expect(report.projections.filter((p) => p.status === 'mismatch')).not.toHaveLength(0);
  });

  it('refuses a malformed anchor with exit code 2', () => {
    const bad = lmem(['verify', '--anchor', '12:nothex']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/anchor/);
  });
});
