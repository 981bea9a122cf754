import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/events/log/sqlite-database.js';
import { dropTablesInSlices } from '../src/projections/drop.js';
import { tempDir } from './support/engine.js';

/*
 * A retired generation's tables emptied a few rows at a time, in slices of a wall-time budget with a
 * pause between (drop.ts): a plain table, a WITHOUT ROWID one and an FTS5 table (its shadow tables).
 */
describe('tables dropped in slices', () => {
  const temp = tempDir();
  afterAll(() => temp.remove());

  it('given three kinds of table, when dropped with a small budget, then each is gone, its rows went in many slices, and other tables keep theirs', async () => {
    const db = openDatabase(join(temp.dir, 'drop.db'));
    db.exec(`
      CREATE TABLE plain (id INTEGER PRIMARY KEY, body TEXT);
      CREATE INDEX plain_body ON plain (body);
      CREATE TABLE keyed (a TEXT, b INTEGER, body TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID;
      CREATE VIRTUAL TABLE words USING fts5(body);
      CREATE TABLE kept (id INTEGER PRIMARY KEY, body TEXT);
    `);
    const body = (i: number) => `row ${i} ${'violin jazz ramen '.repeat(1 + (i % 40))}`;
    db.transaction(() => {
      for (let i = 0; i < 3000; i += 1) {
        db.prepare('INSERT INTO plain (body) VALUES (?)').run(body(i));
        db.prepare('INSERT INTO keyed (a, b, body) VALUES (?, ?, ?)').run(`k${i % 7}`, i, body(i));
        db.prepare('INSERT INTO words (body) VALUES (?)').run(body(i));
        if (i < 10) db.prepare('INSERT INTO kept (body) VALUES (?)').run(body(i));
      }
    })();
    let pauses = 0;
    const counts: number[] = [];
    await dropTablesInSlices(db, ['plain', 'keyed', 'words'], 0.5, async () => {
      pauses += 1;
      if (db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'plain'").pluck().get() === 1) counts.push(db.prepare('SELECT count(*) FROM plain').pluck().get() as number);
    });
    const left = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(left).toEqual(['kept']);
    expect(db.prepare('SELECT count(*) FROM kept').pluck().get()).toBe(10);
    // Many slices, each a part of the rows: the table emptied step by step, never in one go.
    expect(pauses).toBeGreaterThan(10);
    expect(counts.length).toBeGreaterThan(3);
    expect(counts.every((n, i) => n > 0 && (i === 0 || n < (counts[i - 1] as number)))).toBe(true);
    db.close();
  });
});
