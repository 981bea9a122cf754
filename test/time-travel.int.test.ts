import { describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../src/engine/engine.js';
import { ValidationError } from '../src/events/errors.js';
import { parsePointer } from '../src/replay/pointer.js';
import { controllableProvider, openTestEngine, tempDir, useTestEngine } from './support/engine.js';

let engine: MemoryEngine;
useTestEngine((e) => (engine = e));

describe('time travel', () => {
  it('diffs two points: added, changed with before and after, archived, forgotten', async () => {
    const kept = await engine.writeMemory({ text: 'Alice likes green tea', importance: 0.4, sessionId: 's1' });
    const doomed = await engine.writeMemory({ text: 'Bob works at Acme', sessionId: 's1' });
    const shelved = await engine.writeMemory({ text: 'Carol lives in Nanjing' });
    const from = await engine.log.headPosition();
    await engine.updateMemory(kept.memoryId, { text: 'Alice loves green tea', importance: 0.8 });
    await engine.forgetMemory(doomed.memoryId, 'wrong');
    await engine.archiveMemory(shelved.memoryId, 'old');
    const added = await engine.writeMemory({ text: 'Dave drinks coffee' });
    const diff = await engine.diff(from.toString(), (await engine.log.headPosition()).toString());
    expect(diff.from.position).toBe(from);
    expect(diff.added.map((m) => m.memoryId)).toEqual([added.memoryId]);
    expect(diff.forgotten).toEqual([expect.objectContaining({ memoryId: doomed.memoryId, reason: 'wrong', before: expect.objectContaining({ text: 'Bob works at Acme' }) })]);
    expect(diff.archived).toEqual([{ memoryId: shelved.memoryId, reason: 'old' }]);
    const change = diff.changed.find((c) => c.memoryId === kept.memoryId);
    expect(change?.changes).toEqual([
      { field: 'text', before: 'Alice likes green tea', after: 'Alice loves green tea' },
      { field: 'importance', before: 0.4, after: 0.8 },
    ]);
    expect(diff.changed.find((c) => c.memoryId === shelved.memoryId)?.changes.map((c) => c.field)).toEqual(['status', 'statusReason']);
  });

  it('recalls on a past view without touching the live store, and sees what was there then', async () => {
    const tea = await engine.writeMemory({ text: 'Alice likes green tea' });
    const before = await engine.log.headPosition();
    await engine.forgetMemory(tea.memoryId);
    const past = await engine.at(before.toString());
    try {
      const answer = await past.recall({ query: 'green tea', scope: { mode: 'global' } });
      expect(answer.memories.map((m) => m.memoryId)).toEqual([tea.memoryId]);
      expect(past.view.documents.get(tea.memoryId)?.status).toBe('active');
    } finally {
      past.close();
    }
    await engine.flushAccess();
    const head = await engine.log.headPosition();
    expect(head).toBe(before + 1n);
    expect((await engine.recall({ query: 'green tea', scope: { mode: 'global' } })).memories).toEqual([]);
  });

  it('resolves a time to the last position that occurred at or before it', async () => {
    await engine.writeMemory({ text: 'first' });
    const [written] = await engine.log.readAll({ from: 2n, limit: 1 });
    const at = written?.metadata.occurredAt ?? '';
    await engine.writeMemory({ text: 'second' });
    const past = await engine.at(at);
    try {
      expect(past.asOf).toBe(at);
      expect(past.view.documents.list().map((d) => d.text)).toEqual(['first']);
    } finally {
      past.close();
    }
    const early = await engine.at('2000-01-01T00:00:00Z');
    expect(early.position).toBe(0n);
    early.close();
  });

  it('refuses a position past the head and a pointer that is neither position nor time', async () => {
    await expect(engine.at('999')).rejects.toMatchObject({ field: 'at', message: expect.stringMatching(/past the log's head/) });
    expect(() => parsePointer('yesterday')).toThrow(ValidationError);
    await expect(engine.diff('3', '1')).rejects.toMatchObject({ field: 'from' });
  });

  it('builds past vectors from the cache alone, and keeps a memory whose embedding had failed pending until its repair', async () => {
    const { provider, control } = controllableProvider();
    const other = tempDir();
    const local = await openTestEngine(other.dir, { embeddingProvider: provider });
    try {
      control.down = true;
      const { memoryId } = await local.writeMemory({ text: 'Carol moved to Lisbon last spring' });
      const failed = await local.log.headPosition();
      control.down = false;
      await local.maintenance.start();
      const embedded = control.embedded;
      const before = await local.at(failed.toString());
      const after = await local.at((await local.log.headPosition()).toString());
      try {
        expect(control.embedded).toBe(embedded);
        expect([...before.view.vectors.pending().keys()]).toEqual([memoryId]);
        expect(before.view.vectors.ids()).toEqual([]);
        expect(after.view.vectors.ids()).toEqual([memoryId]);
        expect(after.view.vectors.digest()).toBe(local.indexes.vectors.digest());
      } finally {
        before.close();
        after.close();
      }
    } finally {
      await local.close();
      other.remove();
    }
  });
});
