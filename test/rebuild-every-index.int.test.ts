import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine } from '../src/engine/engine.js';
import { engineProjections, rebuildEveryIndex } from '../src/engine/indexes.js';
import { openDatabase } from '../src/events/log/sqlite-database.js';
import { tempDir, testEnvironment } from './support/engine.js';

let temp: ReturnType<typeof tempDir>;
afterEach(() => temp?.remove());

const texts = [
  'Alice met Bob in Paris and they talked about tea',
  '我明天打算去北京出差。小明是我的好朋友',
  'Carol moved to Lisbon last spring with her cat',
  'Bob works at Google and plays chess on Sundays',
];

describe('rebuildEveryIndex', () => {
  it('rebuilds every read model in one replay to the digests the incremental path gave, and drops the retired tables after', async () => {
    temp = tempDir();
    // Pages of 3 events: the replay, the parts of a page and the graph's per-page settle all cross page borders.
    const config = loadConfig({ overrides: { dataDir: temp.dir, projections: { pageSize: 3 } } });
    const engine = await createMemoryEngine(config, { env: testEnvironment(), maintenance: false });
    const ids: string[] = [];
    for (const [i, text] of [...texts, ...texts].entries()) {
      ids.push((await engine.writeMemory({ text: `${text} (${i})`, participants: ['Alice', 'Bob'].slice(0, 1 + (i % 2)), topics: ['tea', 'travel'].slice(i % 2) })).memoryId);
    }
    await engine.forgetMemory(ids[1] as string, 'test');
    await engine.indexes.catchUp();
    const names = engineProjections.map((p) => p.name);
    const digests = () => ({
      sqlite: names.map((name) => engine.runner.digest(name)),
      vectors: engine.indexes.vectors.digest(),
      graphVectors: engine.indexes.graphVectors.digest(),
    });
    const before = digests();
    const generations = engine.runner.status().map((s) => s.generation);
    const vectorGeneration = engine.indexes.vectors.status().generation;

    const results = await rebuildEveryIndex(engine.indexes, names, 'test');
    await engine.runner.idle();

    expect(results.map((r) => r.digest)).toEqual(before.sqlite);
    expect(digests()).toEqual(before);
    expect(engine.runner.status().map((s) => s.generation)).toEqual(generations.map((g) => g + 1));
    expect(engine.indexes.vectors.status()).toMatchObject({ generation: vectorGeneration + 1, building: null });
    await engine.close();
    // No table of a retired generation is left in the file.
    const db = openDatabase(config.dataDir + '/' + config.databaseFile);
    const tables = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    db.close();
    const retired = engineProjections.flatMap((p, i) => p.tables.map((t) => `${t.name}_g${generations[i]}`));
    expect(tables.filter((name) => retired.includes(name))).toEqual([]);
    expect(tables.filter((name) => name.endsWith(`_g${(generations[0] ?? 0) + 1}`)).length).toBeGreaterThan(0);
  });
});
