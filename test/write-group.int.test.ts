import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../src/engine/engine.js';
import type { StreamAppend } from '../src/events/log/event-log.js';
import { tempDir, testEnvironment } from './support/engine.js';

const opened: { engine: MemoryEngine; remove: () => void }[] = [];
afterEach(async () => {
  for (const { engine, remove } of opened.splice(0)) {
    await engine.close();
    remove();
  }
});

async function open(dir = tempDir()): Promise<{ engine: MemoryEngine; dir: string }> {
  const engine = await createMemoryEngine(loadConfig({ overrides: { dataDir: dir.dir } }), { env: testEnvironment(Date.UTC(2026, 0, 1), 'g'), maintenance: false });
  opened.push({ engine, remove: dir.remove });
  return { engine, dir: dir.dir };
}

/** Counts the log's multi-stream appends (the group's batches) and, when told to, fails the next one. */
function watchAppends(engine: MemoryEngine) {
  const log = engine.log as { appendAll?: (appends: readonly StreamAppend[]) => Promise<unknown> };
  const original = log.appendAll?.bind(log);
  if (!original) throw new Error('the SQLite log appends several streams at once');
  const batches: number[] = [];
  const watch = { batches, failNext: false };
  log.appendAll = async (appends) => {
    if (watch.failNext) {
      watch.failNext = false;
      throw new Error('disk I/O error');
    }
    batches.push(appends.length);
    return original(appends);
  };
  return watch;
}

const note = (i: number) => ({ text: `Note ${i}: the Atlas review moved to ${['Friday', 'Monday'][i % 2]}.`, sessionId: `s-${i % 3}`, importance: 0.5 });

describe('writeMemory group commit', () => {
  it('given writes one after another, when each is awaited, then each goes alone through writeMemory, no batch', async () => {
    const { engine } = await open();
    const watch = watchAppends(engine);
    for (let i = 0; i < 5; i += 1) await engine.writeMemory(note(i));
    expect(watch.batches).toEqual([]);
    expect(engine.documents.count()).toBe(5);
  });

  it('given 20 concurrent writes, when they resolve, then the first went alone, the rest in one batch, and each is readable at once', async () => {
    const { engine } = await open();
    const watch = watchAppends(engine);
    const receipts = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const receipt = await engine.writeMemory(note(i), { actor: `agent-${i}`, correlationId: `req-${i}` });
        // Read-your-writes holds for a grouped call as for a lone one.
        expect(engine.documents.get(receipt.memoryId)?.text).toBe(note(i).text);
        return receipt;
      }),
    );
    expect(watch.batches).toEqual([19]);
    expect(new Set(receipts.map((r) => r.memoryId)).size).toBe(20);
    const written = (await engine.log.readAll({ limit: 10_000 })).filter((e) => e.type === 'MemoryWritten');
    // Each memory keeps its own caller's context.
    for (const [i, receipt] of receipts.entries()) {
      const event = written.find((e) => e.type === 'MemoryWritten' && e.data.memoryId === receipt.memoryId);
      expect(event?.metadata).toMatchObject({ actor: `agent-${i}`, correlationId: `req-${i}` });
      expect(receipt.position).toBeGreaterThan(0n);
    }
    const hits = await engine.recall({ query: 'Atlas review Friday', scope: { mode: 'global' }, topK: 10 });
    expect(hits.memories.length).toBeGreaterThan(3);
  });

  it('given a bad input among concurrent writes, when written, then it alone fails with writeMemory\'s error and the others are written', async () => {
    const { engine } = await open();
    const lone = await engine.writeMemory({ ...note(0), importance: 2 }).catch((error: unknown) => error);
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => engine.writeMemory(i === 3 ? { ...note(i), importance: 2 } : note(i))));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const refused = (results[3] as PromiseRejectedResult).reason as { name: string; field: string; message: string };
    expect(refused).toMatchObject({ name: (lone as Error).name, field: (lone as { field: string }).field });
    expect(refused.field).toBe('importance');
    expect(engine.documents.count()).toBe(5);
  });

  it('given the batch\'s append fails, when written, then each call of that batch fails, nothing of it is written, and the next writes go on', async () => {
    const { engine } = await open();
    const watch = watchAppends(engine);
    watch.failNext = true;
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => engine.writeMemory(note(i))));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'rejected', 'rejected']);
    expect(engine.documents.count()).toBe(1);
    await Promise.all(Array.from({ length: 3 }, (_, i) => engine.writeMemory(note(10 + i))));
    expect(engine.documents.count()).toBe(4);
    // One batch after the failed one (the first of the three goes alone unless the group is still turning).
    expect(watch.batches).toHaveLength(1);
  });

  it('given writes waiting in a group, when the engine closes, then they are written first and the next open has them all', async () => {
    const dir = tempDir();
    const first = await open(dir);
    const writes = Array.from({ length: 12 }, (_, i) => first.engine.writeMemory(note(i)));
    const closing = first.engine.close();
    const receipts = await Promise.all(writes);
    await closing;
    opened.splice(0);
    const again = await open(dir);
    expect(again.engine.documents.count()).toBe(12);
    for (const receipt of receipts) expect(again.engine.documents.get(receipt.memoryId)).toBeDefined();
  });

  it('given a memory id named by the caller, when written beside others, then it keeps writeMemory\'s own path and checks', async () => {
    const { engine } = await open();
    await engine.writeMemory({ memoryId: 'named-1', ...note(0) });
    const results = await Promise.allSettled([engine.writeMemory(note(1)), engine.writeMemory({ memoryId: 'named-1', ...note(2) }), engine.writeMemory(note(3))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(engine.documents.get('named-1')?.text).toBe(note(0).text);
  });
});
