import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { engineProjections, type MemoryEngine } from '../src/engine/engine.js';
import { readSnapshot, writeSnapshot } from '../src/projections/vectors/snapshot.js';
import { verifyStore } from '../src/replay/verify.js';
import { openTestEngine, tempDir } from './support/engine.js';

describe('verify: the chain, then every projection against a fresh replay', () => {
  let dir: ReturnType<typeof tempDir>;
  let engine: MemoryEngine;
  beforeEach(async () => {
    dir = tempDir();
    engine = await openTestEngine(dir.dir);
    await engine.writeMemory({ text: 'Alice likes green tea', topics: ['tea'], sessionId: 's1' });
    await engine.writeMemory({ text: 'Bob rides his bike to work in Lisbon', importance: 0.8 });
    const { memoryId } = await engine.writeMemory({ text: 'Carol is learning the cello' });
    await engine.forgetMemory(memoryId, 'asked');
  });
  afterEach(async () => {
    await engine.close();
    dir.remove();
  });

  const verify = (e: MemoryEngine) =>
    verifyStore({ log: e.log, runner: e.runner, projections: engineProjections, vectors: [e.indexes.vectors, e.indexes.graphVectors] });
  /** Closes the engine, runs `change` on the file while nothing holds it, and opens the engine again. */
  const behindTheEnginesBack = async (change: () => void): Promise<void> => {
    await engine.close();
    change();
    engine = await openTestEngine(dir.dir);
  };

  it('finds a store written through the engine sound, every projection at the head', async () => {
    const report = await verify(engine);
    const head = await engine.log.headPosition();
    expect(report.ok).toBe(true);
    expect(report.chain).toMatchObject({ ok: true, checked: head, headPosition: head });
    expect(report.projections.map((p) => p.name)).toEqual([...engineProjections.map((p) => p.name), 'vectors', 'graph_vectors']);
    for (const check of report.projections) expect(check).toMatchObject({ status: 'ok', position: head, replayed: check.live });
  });

  it('opens and verifies a store written before the chain existed', async () => {
    await behindTheEnginesBack(() => {
      const db = new Database(join(dir.dir, 'livingmemory.db'));
      db.exec('ALTER TABLE events DROP COLUMN hash');
      db.close();
    });
    await engine.writeMemory({ text: 'Dave moved to Porto' });
    const report = await verify(engine);
    expect(report.chain).toMatchObject({ ok: true, firstBreak: null });
    expect(report.ok).toBe(true);
    expect(report.chain.checked).toBe(await engine.log.headPosition());
  });

  it('reports a documents row changed behind the engine with both digests; the chain and the others hold', async () => {
    const table = engine.runner.liveTable('documents', 'documents');
    await behindTheEnginesBack(() => {
      const db = new Database(join(dir.dir, 'livingmemory.db'));
      db.prepare(`UPDATE ${table} SET text = 'Alice hates green tea' WHERE text = 'Alice likes green tea'`).run();
      db.close();
    });
    const report = await verify(engine);
    expect(report.ok).toBe(false);
    expect(report.chain.ok).toBe(true);
    const documents = report.projections.find((p) => p.name === 'documents');
    expect(documents).toMatchObject({ status: 'mismatch', live: expect.stringMatching(/^[0-9a-f]{64}$/), replayed: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(documents?.live).not.toBe(documents?.replayed);
    expect(report.projections.filter((p) => p.status !== 'ok').map((p) => p.name)).toEqual(['documents']);
  });

  it('reports a vector changed in the FAISS snapshot file', async () => {
    const { generation } = engine.indexes.vectors.status();
    await behindTheEnginesBack(() => {
      const file = join(dir.dir, 'vectors', `vectors-g${generation}.snap`);
      const snapshot = readSnapshot(file);
      if (!snapshot) throw new Error(`no snapshot at ${file}`);
      const index = Buffer.from(snapshot.index);
      // IndexFlat's serialisation ends with the raw vectors: nudge the last one's last float.
      index.writeFloatLE(index.readFloatLE(index.length - 4) + 0.5, index.length - 4);
      writeSnapshot(file, { ...snapshot, index });
    });
    const report = await verify(engine);
    expect(report.projections.filter((p) => p.status !== 'ok')).toMatchObject([{ name: 'vectors', status: 'mismatch' }]);
    expect(report.chain.ok).toBe(true);
  });
});
