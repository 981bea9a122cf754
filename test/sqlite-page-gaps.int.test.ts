import Database from 'better-sqlite3';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, optimizeDropsDeletedTerms, zeroesPageGaps } from '../src/events/log/sqlite-database.js';
import { readMeta, writeMeta } from '../src/engine/migrations.js';
import { filesUnder, markersIn } from './support/erasure-scan.js';
import { openTestEngine, tempDir } from './support/engine.js';

let temp: ReturnType<typeof tempDir> | undefined;
afterEach(() => temp?.remove());

const marker = 'ZQXGAPMARK';

/**
 * Rows of which about one in ten carry the marker, with updates and deletes of the others between
 * inserts, so b-tree pages are split, merged and rebuilt (a text index and FTS5 too); then every
 * marked row is deleted and the WAL emptied. Returns how often the marker is left in the file.
 */
function markerLeftAfterChurn(file: string, secureDelete: 'ON' | 'OFF'): number {
  const db = openDatabase(file);
  db.pragma(`secure_delete = ${secureDelete}`);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT); CREATE INDEX t_body ON t(body); CREATE VIRTUAL TABLE f USING fts5(body)');
  let seed = 7;
  const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const text = (n: number): string => Array.from({ length: n }, () => Math.floor(rnd() * 1e9).toString(36)).join(' ');
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  const insertFts = db.prepare('INSERT INTO f (rowid, body) VALUES (?, ?)');
  const marked: number[] = [];
  for (let round = 0; round < 12; round += 1) {
    db.transaction(() => {
      for (let i = 0; i < 400; i += 1) {
        const secret = rnd() < 0.1;
        const body = `${secret ? `${marker} ` : ''}${text(2 + Math.floor(rnd() * (rnd() < 0.1 ? 300 : 30)))}`;
        const id = Number(insert.run(body).lastInsertRowid);
        insertFts.run(id, body);
        if (secret) marked.push(id);
      }
      for (let i = 0; i < 150; i += 1) {
        const id = 1 + Math.floor(rnd() * (round + 1) * 400);
        if (marked.includes(id)) continue;
        if (rnd() < 0.5) {
          db.prepare('DELETE FROM t WHERE id = ?').run(id);
          db.prepare('DELETE FROM f WHERE rowid = ?').run(id);
        } else {
          const body = text(1 + Math.floor(rnd() * 200));
          db.prepare('UPDATE t SET body = ? WHERE id = ?').run(body, id);
          db.prepare('UPDATE f SET body = ? WHERE rowid = ?').run(body, id);
        }
      }
    })();
  }
  db.transaction(() => {
    for (const id of marked) {
      db.prepare('DELETE FROM t WHERE id = ?').run(id);
      db.prepare('DELETE FROM f WHERE rowid = ?').run(id);
    }
  })();
  // A merge rewrites FTS5's segments and their page separators (ADR 19: the erasure's optimize).
  db.exec("INSERT INTO f(f) VALUES('optimize')");
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return readFileSync(file).toString('latin1').split(marker).length - 1;
}

/** The store's mark, read through a connection of its own. */
function pageGapsMark(dir: string, file = 'livingmemory.db'): string | undefined {
  const db = new Database(join(dir, file), { readonly: true });
  try {
    return readMeta(db, 'pageGaps');
  } finally {
    db.close();
  }
}

describe("the set-up's SQLite patch: no VACUUM needed for an erasure (ADR 19)", () => {
  it('the loaded SQLite is the patched build, and deletes leave no byte of a deleted row after churn', () => {
    temp = tempDir();
    const probe = new Database(':memory:');
    expect(zeroesPageGaps(probe)).toBe(true);
    expect(optimizeDropsDeletedTerms(probe)).toBe(true);
    probe.close();
    const file = join(temp.dir, 'churn.db');
    expect(markerLeftAfterChurn(file, 'ON')).toBe(0);
    // The same churn without secure_delete keeps deleted rows' bytes: the scan can see them.
    rmSync(file);
    expect(markerLeftAfterChurn(file, 'OFF')).toBeGreaterThan(0);
  });

  it('a new store is known clean, so an erasure does not rewrite it; a store another version opened is vacuumed once, then known clean', async () => {
    temp = tempDir();
    let engine = await openTestEngine(temp.dir);
    expect(pageGapsMark(temp.dir)).toBe('zeroed');
    const write = async (user: string, n: number): Promise<void> => {
      for (let i = 0; i < n; i += 1) await engine.writeMemory({ text: `${user} note ${i}: zq${user}mark about the garden and ${'words '.repeat(i % 40)}`, userId: user });
    };
    await write('ana', 60);
    await write('bo', 60);
    await write('cy', 60);
    const first = await engine.eraseSubject({ kind: 'user', id: 'ana', reason: 'asked' });
    expect(first.vacuumed).toBe(false);
    expect(markersIn(filesUnder(temp.dir), ['zqanamark'])).toEqual({});

    // An older version's open: it names its own version, and its SQLite may have left gaps.
    await engine.close();
    const older = openDatabase(join(temp.dir, 'livingmemory.db'));
    writeMeta(older, 'packageVersion', '0.0.0-older');
    older.close();
    engine = await openTestEngine(temp.dir);
    expect(pageGapsMark(temp.dir)).toBeUndefined();
    // A backup taken before schema 2 has no store_meta: the shred vacuums it once and marks it.
    const backupsDir = `${temp.dir}-backups`;
    const backups = readdirSync(backupsDir).filter((name) => name.endsWith('.db')).map((name) => join(backupsDir, name));
    expect(backups.length).toBeGreaterThan(0);
    const old = openDatabase(backups[0] as string);
    old.exec('DROP TABLE store_meta');
    old.close();
    const second = await engine.eraseSubject({ kind: 'user', id: 'bo', reason: 'asked' });
    expect(second.vacuumed).toBe(true);
    expect(pageGapsMark(temp.dir)).toBe('zeroed');
    const third = await engine.eraseSubject({ kind: 'user', id: 'cy', reason: 'asked' });
    expect(third.vacuumed).toBe(false);
    // cy was the last user: the FTS5 tables end empty, the case where SQLite's own optimize kept the terms.
    expect(markersIn(filesUnder(temp.dir), ['zqbomark', 'zqcymark'])).toEqual({});
    for (const file of readdirSync(backupsDir).filter((name) => name.endsWith('.db'))) {
      expect(pageGapsMark(backupsDir, file)).toBe('zeroed');
    }
    await engine.close();
  });
});
