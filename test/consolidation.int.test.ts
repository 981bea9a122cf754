import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
});
