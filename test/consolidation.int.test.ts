import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { streams } from '../src/events/streams.js';
import { dayMs, manualEnvironment, openLifecycleEngine, removeStore } from './support/lifecycle.js';

let dir = '';
afterEach(() => removeStore(dir));

describe('consolidation over the engine', () => {
  it('never merges a restored original again, however many of its group come back', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lmem-consolidation-'));
    const env = manualEnvironment(Date.parse('2026-04-01T10:00:00Z'));
    const engine = await openLifecycleEngine(dir, env);
    try {
      const ids: string[] = [];
      for (const what of ['planted', 'watered', 'picked']) {
        ids.push((await engine.writeMemory({ text: `Ann ${what} the tomatoes`, importance: 0.3, sessionId: 'garden' })).memoryId);
      }
      env.advance(8 * dayMs);
      const first = await engine.lifecycle.consolidate();
      expect(first.consolidated.map((c) => [...c.mergedMemoryIds].sort())).toEqual([[...ids].sort()]);
      for (const id of ids) await engine.restoreMemory(id);
      env.advance(8 * dayMs);
      // The session holds the consolidated memory and its three originals, all active: only the first is a candidate.
      const again = await engine.lifecycle.consolidatePreview();
      expect(again.candidates).toBe(1);
      expect(again.groups).toEqual([]);
    } finally {
      await engine.close();
    }
  });

  it('a consolidated memory is sealed under every source subject: erasing one sender of one original shreds it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'lmem-consolidation-'));
    const env = manualEnvironment(Date.parse('2026-04-01T10:00:00Z'));
    const engine = await openLifecycleEngine(dir, env);
    try {
      const senders = ['ann', 'ben', 'cleo'];
      for (const [n, sender] of senders.entries()) {
        const source = { messageId: `m${n}`, sessionId: 'club', role: 'user', senderId: sender, senderName: null, content: `${sender} brought the tomatoes`, at: env.now().toISOString() };
        await engine.writeMemory({ text: `${sender} brought the tomatoes to the club`, importance: 0.3, sessionId: 'club', sources: [source] });
      }
      env.advance(8 * dayMs);
      const [merged] = (await engine.lifecycle.consolidate()).consolidated;
      const id = merged?.memoryId as string;
      expect(engine.indexes.sources.of(id).map((m) => m.senderId)).toEqual(senders);
      expect(engine.documents.get(id)?.text).toMatch(/ben/);
      await engine.eraseSubject({ kind: 'user', id: 'ben', reason: 'asked' });
      expect(engine.documents.get(id)?.status).toBe('erased');
      expect(JSON.stringify((await engine.log.readStream(streams.memory(id))).map((e) => e.data))).not.toMatch(/ben brought/);
      // The other originals (archived, not derived from ben) keep their text.
      expect(engine.documents.list().filter((d) => d.text.includes('ann brought'))).toHaveLength(1);
    } finally {
      await engine.close();
    }
  });
});
