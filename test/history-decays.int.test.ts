import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../src/engine/engine.js';
import { dayMs, manualEnvironment, openLifecycleEngine, removeStore } from './support/lifecycle.js';

/*
 * A memory's history shows the ticks that decayed it, found through the decay batches' id ranges
 * (one index row per batch, ADR 29): never a batch that only spans its id without naming it; and
 * `recall --at T` sees the importances the ticks up to T left.
 */
describe('history of decayed memories', () => {
  let engine: MemoryEngine | undefined;
  let dir = '';
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    removeStore(dir);
  });

  it('given memories that decay and memories the tick protects, when two days are ticked, then only the decayed ones show the batch', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lmem-history-decays-'));
    const start = Date.parse('2026-03-01T10:00:00Z');
    const env = manualEnvironment(start);
    engine = await openLifecycleEngine(dir, env);
    const decaying: string[] = [];
    const protectedIds: string[] = [];
    for (let i = 0; i < 24; i += 1) {
      // Importance 1 is at or above the default protection line: a tick leaves it alone.
      const importance = i % 2 === 0 ? 0.4 : 1;
      const { memoryId } = await engine.writeMemory({ text: `note ${i} about the harbour`, importance });
      (importance < 1 ? decaying : protectedIds).push(memoryId);
    }
    env.set(start + 2 * dayMs);
    const ticks = await engine.lifecycle.catchUp();
    expect(ticks.length).toBe(2);
    expect(ticks.every((t) => t.decayed === decaying.length)).toBe(true);

    const decayEntries = async (id: string) => (await engine!.history(id))?.entries.filter((e) => e.type === 'MemoryImportanceDecayed') ?? [];
    for (const id of decaying) expect((await decayEntries(id)).length).toBe(ticks.length);
    for (const id of protectedIds) expect(await decayEntries(id)).toEqual([]);
    // An id inside the batch's range that no event names has no history at all.
    const [first] = [...decaying].sort();
    expect(await engine.history(`${first}\u0000`)).toBeUndefined();
  });

  it('given three days ticked, when the store is recalled as of each tick, then it sees the importances of that time', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lmem-decays-at-'));
    const start = Date.parse('2026-03-01T10:00:00Z');
    const env = manualEnvironment(start);
    engine = await openLifecycleEngine(dir, env);
    const { memoryId } = await engine.writeMemory({ text: 'Ann keeps her boat in the harbour', importance: 0.4 });
    env.set(start + 3 * dayMs);
    const ticks = await engine.lifecycle.catchUp();
    expect(ticks.map((t) => t.decayed)).toEqual([1, 1, 1]);
    // 0.4 less 1% a tick, to four decimals: 0.396, 0.392 (0.39204), 0.3881 (0.388080...).
    const expected = [0.4, 0.396, 0.392, 0.3881];
    const times = [new Date(start).toISOString(), ...ticks.map((t) => t.asOf)];
    for (const [n, at] of times.entries()) {
      const past = await engine.at(at);
      try {
        expect(past.view.documents.get(memoryId)?.importance, at).toBe(expected[n]);
        const answer = await past.recall({ query: 'boat harbour', scope: { mode: 'global' } });
        expect(answer.memories.map((m) => [m.memoryId, m.importance]), at).toEqual([[memoryId, expected[n]]]);
      } finally {
        past.close();
      }
    }
  });
});
