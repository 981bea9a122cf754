import Database from 'better-sqlite3';
import { statSync, truncateSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { engineProjections } from '../src/engine/engine.js';
import { createGenerationStore } from '../src/projections/generations.js';
import { createGenerationWriter } from '../src/projections/apply.js';
import { keyedContentHash } from '../src/providers/embeddings/index.js';
import { filesHolding, filesUnder, markersIn } from './support/erasure-scan.js';
import { openTestEngine, tempDir } from './support/engine.js';

let temp: ReturnType<typeof tempDir> | undefined;
afterEach(() => temp?.remove());

const shared = 'The choir meets on Fridays near the Osaka station';

describe('what an erasure reaches', () => {
  it('leaves no byte of the subject in any file of the data dir, where its texts shared words and a whole text with others', async () => {
    temp = tempDir();
    const engine = await openTestEngine(temp.dir);
    // Tina through the hooks as the README shows (summaries, recall events), by hand, updated, imported.
    for (let n = 0; n < 10; n += 1) {
      await engine.beforeLlmRequest({ sessionId: 'tina-chat', userId: 'tina', message: { content: `I play violin near Osaka station, note zqtinamsg${n}.` } });
      await engine.afterLlmResponse({ sessionId: 'tina-chat', userId: 'tina', message: { content: `Violin near Osaka, zqtinareply${n}.` } });
    }
    for (const task of engine.conversation.tasks()) await engine.conversation.waitForTask(task.taskId);
    const own = await engine.writeMemory({ text: 'Tina keeps zqtinaown in a violin case', userId: 'tina', topics: ['zqtinatopic'], participants: ['Tina'] });
    await engine.updateMemory(own.memoryId, { text: 'Tina keeps zqtinaupdated in a violin case' });
    await engine.writeMemory({ text: shared, userId: 'tina' });
    await engine.importMemories({ content: JSON.stringify([{ text: 'Tina imported zqtinaimport about violin', userId: 'tina' }]), source: 'notes.json' });
    // Omar shares words with her, and one whole text (so one cached embedding).
    await engine.writeMemory({ text: 'Omar plays violin near Osaka station too', userId: 'omar' });
    const omarShared = await engine.writeMemory({ text: shared, userId: 'omar' });
    const before = await engine.log.headPosition();
    await engine.flushAccess();
    expect(Object.keys(markersIn(filesUnder(temp.dir), ['zqtinamsg', 'zqtinareply', 'zqtinaupdated', 'zqtinaimport']))).toHaveLength(4);

    const preview = await engine.previewErasure({ kind: 'user', id: 'tina' });
    expect(preview).toMatchObject({ messages: 20, memoryUpdates: 1 });
    expect(preview.memories).toBeGreaterThanOrEqual(4);
    const receipt = await engine.eraseSubject({ kind: 'user', id: 'tina', reason: 'asked' });
    expect(receipt.counts.memories).toBe(preview.memories);
    expect(receipt.embeddingsForgotten).toBe(preview.embeddings);
    // With the store still open, so the WAL (which a close folds into the file and deletes) is scanned too.
    const openFiles = filesUnder(temp.dir);
    expect(openFiles.map((f) => basename(f))).toContain('livingmemory.db-wal');
    expect(markersIn(openFiles, ['zqtina', 'Tina keeps'])).toEqual({});

    // Time travel to before the erasure replays the log, where her content now reads as erased.
    const past = await engine.at(before.toString());
    try {
      const answer = await past.recall({ query: 'violin zqtinaown', scope: { mode: 'global' } });
      expect(answer.memories.map((m) => m.text).filter((t) => t.includes('zqtina'))).toEqual([]);
    } finally {
      past.close();
    }
    const stillOmar = await engine.recall({ query: shared, scope: { mode: 'user', userId: 'omar' } });
    expect(stillOmar.memories.map((m) => m.memoryId)).toContain(omarShared.memoryId);
    await engine.close();

    expect(markersIn(filesUnder(temp.dir), ['zqtina', 'Tina keeps'])).toEqual({});
    // The shared text's cached embedding stays (Omar's memory has it); every other text of hers is gone from the cache.
    const db = new Database(join(temp.dir, 'livingmemory.db'), { readonly: true });
    try {
      const keyOf = cacheKeyOf(db);
      const keys = new Set(db.prepare('SELECT content_hash FROM embedding_cache').pluck().all() as string[]);
      expect(keys.has(keyOf(shared))).toBe(true);
      for (const text of ['Tina keeps zqtinaown in a violin case', 'Tina keeps zqtinaupdated in a violin case', 'Tina imported zqtinaimport about violin']) {
        expect(keys.has(keyOf(text))).toBe(false);
      }
    } finally {
      db.close();
    }
  });

  it('does not resume a shadow generation a killed rebuild left with the subject in clear', async () => {
    temp = tempDir();
    const engine = await openTestEngine(temp.dir);
    await engine.writeMemory({ text: 'Tina hides zqtinashadow in the attic', userId: 'tina' });
    await engine.writeMemory({ text: 'Omar hides his keys in the attic', userId: 'omar' });
    // What a rebuild killed before the erasure leaves: building generations, filled while the text was readable.
    const db = new Database(join(temp.dir, 'livingmemory.db'));
    const store = createGenerationStore(db);
    const left: number[] = [];
    for (const projection of engineProjections) {
      const gen = db.transaction(() => store.create(projection.name, projection.version, 'building')).immediate();
      const writer = createGenerationWriter(db, store, projection, gen);
      writer.init();
      writer.applyPage(await engine.log.readAll());
      left.push(gen.generation);
    }
    db.close();
    await engine.eraseSubject({ kind: 'user', id: 'tina', reason: 'asked' });
    const status = engine.runner.status();
    expect(status.every((p) => p.building === null)).toBe(true);
    expect(engine.documents.list({ limit: 10 }).map((d) => d.text).sort()).toEqual(['Omar hides his keys in the attic', '[erased]']);
    await engine.close();
    expect(markersIn(filesUnder(temp.dir), ['zqtinashadow'])).toEqual({});
  });

  it('deletes a damaged snapshot set aside on open, which still held the erased memory vector', async () => {
    temp = tempDir();
    const text = 'Tina hides zqtinavector under the floor';
    let engine = await openTestEngine(temp.dir);
    await engine.writeMemory({ text, userId: 'tina' });
    await engine.writeMemory({ text: 'Omar keeps his bicycle in the hall', userId: 'omar' });
    await engine.close();
    const vector = cachedVector(join(temp.dir, 'livingmemory.db'), text);
    // A damaged snapshot, as a disk error leaves it: cut short, every vector but the last bytes still in it.
    const snap = filesUnder(join(temp.dir, 'vectors')).find((f) => /\/vectors-g\d+\.snap$/.test(f)) as string;
    truncateSync(snap, statSync(snap).size - 8);

    engine = await openTestEngine(temp.dir);
    const [setAside] = (await engine.status()).vectors.setAside;
    expect(setAside?.movedTo).toMatch(/\.damaged-1$/);
    expect(filesHolding(filesUnder(temp.dir), [vector]).map((f) => basename(f))).toContain(setAside?.movedTo);
    await engine.eraseSubject({ kind: 'user', id: 'tina', reason: 'asked' });
    expect((await engine.status()).vectors.setAside[0]?.reason).toMatch(/deleted by an erasure/);
    await engine.close();
    const files = filesUnder(temp.dir);
    expect(files.filter((f) => f.includes('.damaged-'))).toEqual([]);
    expect(filesHolding(files, [vector])).toEqual([]);
  });
});

/** The store's embedding cache key of a text (the HMAC under its secret). */
const cacheKeyOf = (db: Database.Database): ((text: string) => string) =>
  keyedContentHash(db.prepare("SELECT value FROM store_secrets WHERE name = 'embedding-cache-hmac'").pluck().get() as Buffer);

/** The bytes of a text's cached embedding, as the vector index stores them too. */
function cachedVector(file: string, text: string): Buffer {
  const db = new Database(file, { readonly: true });
  try {
    const keyOf = cacheKeyOf(db);
    return db.prepare('SELECT vector FROM embedding_cache WHERE content_hash = ?').pluck().get(keyOf(text)) as Buffer;
  } finally {
    db.close();
  }
}
