import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../src/events/log/sqlite-database.js';
import { ftsTablesOf, mergeSegmentsInSlices, worthMerging } from '../src/projections/fts-merge.js';
import { atomsProjection } from '../src/projections/atoms.js';
import { ftsProjection } from '../src/projections/fts.js';
import { generationTable } from '../src/projections/generations.js';
import { graphProjection } from '../src/projections/graph.js';
import { openTestEngine, tempDir } from './support/engine.js';

/** Whether FTS5 finds merge work left in `table` (it does some of it): a merge that did nothing changes one row. */
function mergeWorkLeft(db: SqliteDatabase, table: string): boolean {
  const changes = db.prepare<[], number>('SELECT total_changes()').pluck();
  const before = changes.get() ?? 0;
  db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('merge', -16)`).run();
  return (changes.get() ?? 0) - before >= 2;
}

const words = ['violin', 'osaka', 'tennis', 'jazz', 'ramen', 'chess', 'deadline', 'project', 'trip', 'budget'];
const text = (i: number) => Array.from({ length: 6 }, (_, k) => words[(i * (k + 3) + k) % words.length]).join(' ') + ` row${i}`;

describe('FTS5 segments merged in slices', () => {
  const temp = tempDir();
  afterAll(() => temp.remove());

  it('leaves one segment and the same matches and scores', async () => {
    const db = openDatabase(join(temp.dir, 'merge.db'));
    for (const t of ['a', 'b']) {
      db.exec(`CREATE VIRTUAL TABLE ${t} USING fts5(body)`);
      const insert = db.prepare(`INSERT INTO ${t} (rowid, body) VALUES (?, ?)`);
      // One transaction per 20 rows: a segment per commit, as a catch-up page by page leaves them.
      for (let start = 0; start < 2000; start += 20) db.transaction(() => { for (let i = start; i < start + 20; i += 1) insert.run(i + 1, text(i)); })();
    }
    const search = (t: string) =>
      ['violin', 'jazz OR ramen', 'project deadline', 'row7*'].map((q) => db.prepare(`SELECT rowid, bm25(${t}) AS s FROM ${t} WHERE ${t} MATCH ? ORDER BY s, rowid LIMIT 50`).all(q));
    const before = search('b');
    expect(search('a')).toEqual(before);
    await mergeSegmentsInSlices(db, 'b', 1);
    expect(search('b')).toEqual(before);
    expect(mergeWorkLeft(db, 'a')).toBe(true);
    expect(mergeWorkLeft(db, 'b')).toBe(false);
    db.close();
  });

  it('merges the FTS5 tables a replay from empty or a rebuild filled, and the read models are the same', async () => {
    const dir = join(temp.dir, 'engine');
    const projections = [ftsProjection, graphProjection, atomsProjection];
    const first = await openTestEngine(dir);
    await first.writeMemories(Array.from({ length: 400 }, (_, i) => ({ text: `${text(i)} with Alice in Osaka`, participants: ['Alice'] })));
    const digests = projections.map((p) => first.runner.digest(p.name));
    await first.close();
    // The three read models gone (1,200 events to replay), as for a store whose log another process wrote: the next open replays them from empty.
    const raw = openDatabase(join(dir, 'livingmemory.db'));
    for (const p of projections) {
      for (const { generation } of raw.prepare<[string], { generation: number }>('SELECT generation FROM projection_generations WHERE name = ?').all(p.name)) {
        for (const t of p.tables) raw.exec(`DROP TABLE IF EXISTS ${generationTable(t.name, generation)}`);
      }
      raw.prepare('DELETE FROM projection_generations WHERE name = ?').run(p.name);
    }
    raw.close();
    const engine = await openTestEngine(dir);
    const db = openDatabase(join(dir, 'livingmemory.db'));
    try {
      const generation = (name: string) => engine.runner.status().find((p) => p.name === name)?.generation ?? 0;
      const live = () => projections.flatMap((p) => ftsTablesOf(db, p, generation(p.name)));
      await engine.runner.idle();
      expect(projections.map((p) => engine.runner.digest(p.name))).toEqual(digests);
      expect(live()).toHaveLength(3);
      for (const table of live()) expect(mergeWorkLeft(db, table)).toBe(false);
      for (const p of projections) await engine.runner.rebuild(p.name);
      await engine.runner.idle();
      expect(projections.map((p) => engine.runner.digest(p.name))).toEqual(digests);
      for (const table of live()) expect(mergeWorkLeft(db, table)).toBe(false);
    } finally {
      db.close();
      await engine.close();
    }
  });

  it('merges what a quarter of the store or more came in at once, from 1,000 events', () => {
    expect(worthMerging(1000n, 1000n)).toBe(true);
    expect(worthMerging(999n, 999n)).toBe(false);
    expect(worthMerging(2500n, 10_000n)).toBe(true);
    expect(worthMerging(2499n, 10_000n)).toBe(false);
    expect(worthMerging(3n, 3_000n)).toBe(false);
  });
});
