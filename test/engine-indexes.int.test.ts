import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHashEmbeddingProvider } from '../src/providers/embeddings/hash.js';
import { openDatabase } from '../src/events/log/sqlite-database.js';
import { controllableProvider, openTestEngine, tempDir } from './support/engine.js';

let temp: ReturnType<typeof tempDir>;
afterEach(() => temp?.remove());

describe('engine indexes', () => {
  it('keeps a memory whose embedding failed, records the failure, and maintenance repairs it', async () => {
    temp = tempDir();
    const { provider, control } = controllableProvider();
    const engine = await openTestEngine(temp.dir, { embeddingProvider: provider });
    control.down = true;
    const receipt = await engine.writeMemory({ text: 'Carol moved to Lisbon last spring', participants: ['Carol'] });
    expect(receipt.embeddingError).toMatch(/provider down/);
    expect(engine.documents.get(receipt.memoryId)?.text).toBe('Carol moved to Lisbon last spring');
    expect(engine.indexes.keyword.search('Lisbon').map((h) => h.memoryId)).toEqual([receipt.memoryId]);
    expect([...engine.indexes.vectors.pending().keys()]).toEqual([receipt.memoryId]);
    expect([...engine.indexes.graphVectors.pending().keys()]).toEqual([`${receipt.memoryId}#0`]);
    const types = (await engine.log.readStream(`memory-${receipt.memoryId}`)).map((e) => e.type);
    expect(types).toContain('MemoryEmbeddingFailed');

    control.down = false;
    await engine.maintenance.start();
    expect(engine.indexes.vectors.ids()).toContain(receipt.memoryId);
    expect(engine.indexes.vectors.pending().size).toBe(0);
    expect(engine.indexes.graphVectors.status()).toMatchObject({ size: 1, pending: 0 });
    expect((await engine.log.readStream(`memory-${receipt.memoryId}`)).map((e) => e.type)).toContain('MemoryEmbeddingRepaired');
    expect(engine.maintenance.status()).toMatchObject({ state: 'idle', report: { vectorMismatch: 0, graphVectorMismatch: 0, ftsMismatch: 0 } });
    await engine.close();
  });

  it('rebuilds the vector index when the provider fingerprint changes, and embeds nothing again for the same one', async () => {
    temp = tempDir();
    const first = controllableProvider(createHashEmbeddingProvider({ dimension: 32 }));
    const engine = await openTestEngine(temp.dir, { embeddingProvider: first.provider });
    // With a topic, a graph entry's text differs from its memory's: two texts per memory, in one call.
    for (let i = 0; i < 10; i += 1) await engine.writeMemory({ text: `fact number ${i} about tea`, topics: ['tea'] });
    expect(first.control.embedded).toBe(20);
    await engine.maintenance.rebuildIndex();
    expect(first.control.embedded).toBe(20);
    await engine.close();

    // Same dimension, other settings: a different fingerprint.
    const second = controllableProvider(createHashEmbeddingProvider({ dimension: 32, maxInputChars: 100 }));
    const reopened = await openTestEngine(temp.dir, { embeddingProvider: second.provider });
    expect(reopened.maintenance.status().needsIndexRebuild).toMatch(/fingerprint changed/);
    const generation = reopened.indexes.vectors.status().generation;
    await reopened.maintenance.start();
    expect(second.control.embedded).toBe(20);
    expect(reopened.indexes.vectors.status()).toMatchObject({ generation: generation + 1, size: 10, pending: 0 });
    expect(reopened.indexes.graphVectors.status()).toMatchObject({ size: 10, pending: 0 });
    expect(reopened.maintenance.status().report).toMatchObject({ fingerprintChanged: false, graphVectorMismatch: 0 });
    expect(reopened.maintenance.status().needsIndexRebuild).toBeNull();
    const changes = (await reopened.log.readStream('system-providers')).map((e) => e.type);
    expect(changes).toEqual(['ProviderFingerprintChanged', 'ProviderFingerprintChanged']);
    await reopened.close();
  });

  it('recovers a lost vector snapshot from the log and repairs a drifted FTS index at the start-up check', async () => {
    temp = tempDir();
    const engine = await openTestEngine(temp.dir);
    for (let i = 0; i < 5; i += 1) await engine.writeMemory({ text: `记忆 ${i} 南京市长江大桥` });
    const ftsTable = engine.runner.liveTable('fts', 'livingmemory_memories_fts');
    await engine.close();
    // Behind the engine's back: lose the vector snapshots and one FTS row.
    rmSync(join(temp.dir, 'vectors'), { recursive: true, force: true });
    const db = openDatabase(join(temp.dir, 'livingmemory.db'));
    db.prepare(`DELETE FROM ${ftsTable} WHERE rowid = (SELECT min(rowid) FROM ${ftsTable})`).run();
    db.close();

    const reopened = await openTestEngine(temp.dir);
    // The vector index replays from checkpoint 0 with the cached embeddings.
    expect(reopened.indexes.vectors.ids()).toHaveLength(5);
    expect(reopened.indexes.keyword.search('长江大桥', { limit: 10 })).toHaveLength(4);
    await reopened.maintenance.start();
    expect(reopened.maintenance.status().report).toMatchObject({ ftsMismatch: 0, vectorMismatch: 0, documents: 5, vectors: 5, graphVectors: 5 });
    expect(reopened.indexes.keyword.search('长江大桥', { limit: 10 })).toHaveLength(5);
    await reopened.close();
  });
});
