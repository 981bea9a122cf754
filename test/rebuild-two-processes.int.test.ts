import { afterEach, describe, expect, it } from 'vitest';
import { generationTable } from '../src/projections/generations.js';
import { openDatabase } from '../src/events/log/sqlite-database.js';
import { openTestEngine, tempDir } from './support/engine.js';
import { join } from 'node:path';

type Engine = Awaited<ReturnType<typeof openTestEngine>>;

/*
 * Two processes on one store may rebuild the same read model at once (a `lmem rebuild` beside a
 * server): the second resumes the first's shadow, and both switch it. Found at 100k memories: the
 * second switch retired the generation the first had just made live, and its tables were dropped
 * while it served (no such table: memory_atoms_g11).
 */
describe('two engines rebuilding one read model at once', () => {
  const temp = tempDir();
  const engines: Engine[] = [];
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.close();
    temp.remove();
  });

  it('leave the live generation with its tables, whichever switches first', async () => {
    const a = await openTestEngine(temp.dir);
    engines.push(a);
    await a.writeMemories(Array.from({ length: 60 }, (_, i) => ({ text: `note ${i} about the garden and the jazz club`, participants: ['Alice'] })));
    const b = await openTestEngine(temp.dir);
    engines.push(b);
    const before = a.runner.digest('atoms');
    const results = await Promise.all([a.runner.rebuild('atoms'), b.runner.rebuild('atoms')]);
    await Promise.all([a.runner.idle(), b.runner.idle()]);
    const db = openDatabase(join(temp.dir, 'livingmemory.db'));
    try {
      const live = db.prepare<[], number>("SELECT generation FROM projection_generations WHERE name = 'atoms' AND status = 'live'").pluck().all();
      expect(live).toHaveLength(1);
      const exists = db.prepare<[string], number>("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?").pluck();
      for (const t of ['memory_atoms', 'memory_atoms_fts']) expect(exists.get(generationTable(t, live[0] as number))).toBe(1);
      expect(results.map((r) => r.generation)).toContain(live[0]);
    } finally {
      db.close();
    }
    expect(a.runner.digest('atoms')).toBe(before);
    expect(b.runner.digest('atoms')).toBe(before);
    expect(a.indexes.atoms.inStatuses(['active']).length).toBeGreaterThan(0);
  });
});
