import { describe, expect, it } from 'vitest';
import { createEmbeddingCache } from '../src/providers/embeddings/index.js';
import type { MemoryEngine } from '../src/engine/engine.js';
import { createTransfer } from '../src/engine/transfer.js';
import { openDatabase } from '../src/events/log/sqlite-database.js';
import { maxImportBytes, maxImportEntries } from '../src/replay/transfer/format.js';
import { defaultLimits } from '../src/events/bounds.js';
import { openTestEngine, tempDir, testEnvironment, useTestEngine } from './support/engine.js';

let engine: MemoryEngine;
useTestEngine((e) => (engine = e));

const native = (memories: unknown[], version: unknown = 1) => JSON.stringify({ format: 'livingmemory.memories', version, exportedAt: '2026-01-01T00:00:00Z', memories });
const texts = (e: MemoryEngine) => e.documents.list({ limit: null, status: 'active' }).map((d) => d.text).sort();

describe('import', () => {
  it('refuses an oversize file, too many entries and a wrong version, naming the limit, and writes nothing', async () => {
    const head = await engine.log.headPosition();
    const big = `[${'"x",'.repeat(Math.ceil(maxImportBytes / 4))}"x"]`;
    await expect(engine.importMemories({ content: big })).rejects.toMatchObject({ field: 'file', message: expect.stringMatching(/limit is 50\.0 MiB/) });
    const many = JSON.stringify(Array.from({ length: maxImportEntries + 1 }, (_, i) => `memory ${i}`));
    await expect(engine.importMemories({ content: many })).rejects.toMatchObject({ field: 'memories', message: expect.stringMatching(/10001 entries; the limit is 10000/) });
    const manyRows = `text\r\n${Array.from({ length: maxImportEntries + 1 }, (_, i) => `m${i}`).join('\r\n')}`;
    await expect(engine.importMemories({ content: manyRows, format: 'csv' })).rejects.toMatchObject({ field: 'rows' });
    await expect(engine.importMemories({ content: native([], 2) })).rejects.toMatchObject({ field: 'version', message: expect.stringMatching(/reads version 1/) });
    await expect(engine.importMemories({ content: JSON.stringify({ format: 'other', version: 1 }) })).rejects.toMatchObject({ field: 'format' });
    await expect(engine.importMemories({ content: '{"memories": [' })).rejects.toMatchObject({ field: 'file' });
    expect(await engine.log.headPosition()).toBe(head);
  });

  it('names the row and field of a malformed row and imports nothing, not even the valid rows', async () => {
    const head = await engine.log.headPosition();
    const content = native([{ text: 'fine' }, { text: 'also fine' }, { text: 'bad', importance: 3 }, { text: 'typo', topcs: [] }]);
    await expect(engine.importMemories({ content })).rejects.toMatchObject({
      field: 'row 3.importance',
      message: expect.stringMatching(/and 1 more invalid rows.*nothing was imported/),
    });
    expect(engine.previewImport({ content }).invalidRows).toEqual([
      { row: 3, field: 'importance', message: expect.any(String) },
      { row: 4, field: 'topcs', message: expect.any(String) },
    ]);
    const csv = 'text,importance\r\nok,0.5\r\nworse,lots\r\n';
    await expect(engine.importMemories({ content: csv })).rejects.toMatchObject({ field: 'row 2.importance' });
    await expect(engine.importMemories({ content: 'text,colour\r\nx,red\r\n' })).rejects.toMatchObject({ field: 'header', message: expect.stringMatching(/"colour"/) });
    await expect(engine.importMemories({ content: 'text,text\r\nx,y\r\n' })).rejects.toMatchObject({ field: 'header', message: expect.stringMatching(/twice/) });
    expect(engine.previewImport({ content: 'text,importance\r\nshort\r\n' }).invalidRows).toEqual([{ row: 1, field: '(row)', message: 'has 1 cells; the header has 2' }]);
    expect(await engine.log.headPosition()).toBe(head);
  });

  it('previews and de-duplicates on (content, session, persona) against the store and within the file', async () => {
    await engine.writeMemory({ text: 'Alice likes tea', sessionId: 's1' });
    const content = native([
      { text: 'Alice likes tea', sessionId: 's1' },
      { text: 'Alice likes tea', sessionId: 's2' },
      { text: '  Alice likes tea ', sessionId: 's2' },
      { text: 'Alice likes tea', sessionId: 's2', personaId: 'p1' },
    ]);
    const head = await engine.log.headPosition();
    expect(engine.previewImport({ content })).toMatchObject({ new: 2, duplicate: 2, invalid: 0, duplicates: [{ row: 1, of: 'store' }, { row: 3, of: 2 }] });
    expect(await engine.log.headPosition()).toBe(head);
    const receipt = await engine.importMemories({ content, source: 'test.json' });
    expect(receipt).toMatchObject({ duplicates: 2 });
    expect(receipt.memoryIds).toHaveLength(2);
    expect(engine.previewImport({ content }).new).toBe(0);
    const events = await engine.log.readStream('system-imports');
    expect(events.map((e) => e.type)).toEqual(['MemoriesImportStarted', 'MemoriesImportCompleted']);
    const [written] = await engine.log.readStream(`memory-${receipt.memoryIds[0]}`);
    expect(written?.metadata).toMatchObject({ correlationId: receipt.importId, causationId: receipt.importId });
  });

  it('reads external JSON shapes: content, text, summary and memory fields, bare strings, memories collections', async () => {
    const content = JSON.stringify({
      memories: [
        { content: 'from content', user_id: 'u1', tags: ['x'] },
        { text: 'from text', session_id: 's9' },
        { summary: 'from summary', importance: 0.9 },
        { memory: 'from memory', id: 'ignored', metadata: {} },
        'a bare string',
      ],
    });
    expect(engine.previewImport({ content })).toMatchObject({ format: 'external-json', new: 5 });
    await engine.importMemories({ content });
    expect(texts(engine)).toEqual(['a bare string', 'from content', 'from memory', 'from summary', 'from text']);
    expect(engine.documents.list({ userId: 'u1' })).toEqual([expect.objectContaining({ text: 'from content', topics: ['x'] })]);
    expect(engine.previewImport({ content: JSON.stringify([{ title: 'no text' }]) }).invalidRows).toEqual([{ row: 1, field: 'text', message: 'must not be empty' }]);
  });

  it('round-trips CSV, formula cells escaped on the way out and restored on the way in', async () => {
    const risky = ['=SUM(A1:A9)', '+1 555 0100', '-2 degrees', '@alice said hi', "'quoted", 'multi\nline, "quoted"'];
    for (const text of risky) await engine.writeMemory({ text, topics: ['=cmd'], sessionId: 's1' });
    await engine.archiveMemory(engine.documents.list({ limit: 1 })[0]?.memoryId ?? '');
    const csv = engine.exportMemories({ format: 'csv', sessionId: 's1' });
    for (const line of csv.split('\r\n').slice(1)) expect(line).not.toMatch(/^[=+\-@]|,[=+\-@]/);
    expect(csv).toContain(",'=SUM(A1:A9),");
    const other = tempDir();
    const target = await openTestEngine(other.dir);
    try {
      await target.importMemories({ content: csv, format: 'csv' });
      expect(target.documents.list({ limit: null }).map((d) => d.text).sort()).toEqual([...risky].sort());
      expect(target.documents.count('archived')).toBe(1);
      expect(target.documents.list({ limit: 1 })[0]?.topics).toEqual(['=cmd']);
      const json = JSON.parse(target.exportMemories()) as { memories: { text: string }[] };
      expect(json.memories.map((m) => m.text).sort()).toEqual([...risky].sort());
    } finally {
      await target.close();
      other.remove();
    }
  });

  /** A log without atomic multi-stream appends whose append to the `failAt`-th memory stream fails (a stand-in for a disk failure). */
  const failingTransfer = (failAt: number, failForget = false) => {
    let memoryStreams = 0;
    const log = {
      ...engine.log,
      appendAll: undefined,
      append: async (streamId: string, events: Parameters<MemoryEngine['log']['append']>[1], options?: Parameters<MemoryEngine['log']['append']>[2]) => {
        if (events[0]?.type === 'MemoryWritten' && (memoryStreams += 1) === failAt) throw new Error('disk I/O error');
        return engine.log.append(streamId, events, options);
      },
    };
    return createTransfer({
      log,
      env: testEnvironment(Date.UTC(2026, 1, 1), 'imp'),
      indexes: engine.indexes,
      provider: engine.provider,
      cache: createEmbeddingCache(openDatabase(':memory:'), Buffer.alloc(32, 7)),
      defaultActor: 'test',
      limits: defaultLimits,
      invalidate: () => undefined,
      outputs: engine.outputs,
      write: async (type, input, ctx) => {
        const data = input as { memoryId: string; text?: string; reason?: string };
        if (type === 'ForgetMemory' && failForget) throw new Error('disk gone');
        if (type === 'ForgetMemory') return engine.forgetMemory(data.memoryId, data.reason, ctx);
        return engine.writeMemory(input as never, ctx);
      },
    });
  };

  it('on a log without atomic appends, forgets what it wrote when an append fails part-way, and records the rollback', async () => {
    // A stand-in for a disk or database failure on the third write: nothing else here can fail a write.
    const transfer = failingTransfer(3);
    const content = native(['one', 'two', 'three', 'four'].map((text) => ({ text })));
    await expect(transfer.importMemories({ content })).rejects.toThrow(/rolled back after 2 of 4 memories: disk I\/O error/);
    expect(engine.documents.count('active')).toBe(0);
    const forgotten = engine.documents.list({ status: 'forgotten' });
    expect(forgotten.map((d) => d.statusReason)).toEqual(['import rolled back', 'import rolled back']);
    const events = await engine.log.readStream('system-imports');
    expect(events.map((e) => e.type)).toEqual(['MemoriesImportStarted', 'MemoriesImportRolledBack']);
    expect(events[1]?.type === 'MemoriesImportRolledBack' && events[1].data.memoryIds).toHaveLength(2);
  });

  it('leaves an import whose rollback failed too (as after a crash) Started, and rolls it back on request', async () => {
    const content = native(['one', 'two', 'three'].map((text) => ({ text })));
    await expect(failingTransfer(3, true).importMemories({ content })).rejects.toThrow(/disk gone/);
    expect(engine.documents.count('active')).toBe(2);
    const [started] = await engine.log.readStream('system-imports');
    const importId = started?.type === 'MemoriesImportStarted' ? started.data.importId : '';
    const undone = await engine.rollbackImport(importId);
    expect(undone.forgotten).toHaveLength(2);
    expect(engine.documents.count('active')).toBe(0);
    expect((await engine.log.readStream('system-imports')).map((e) => e.type)).toEqual(['MemoriesImportStarted', 'MemoriesImportRolledBack']);
    await expect(engine.rollbackImport(importId)).rejects.toMatchObject({ field: 'import-id', message: expect.stringMatching(/already rolled back/) });
    await expect(engine.rollbackImport('nope')).rejects.toMatchObject({ field: 'import-id' });
  });
});
