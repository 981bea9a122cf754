import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dayMs, digests, manualEnvironment, openLifecycleEngine, removeStore, replayedDigests } from './support/lifecycle.js';

/*
 * (e) Consolidation and restore are events like any other: a replay of the whole log after random
 * consolidations, restores and ticks gives the digests of the incremental run.
 */

type Step =
  | { readonly kind: 'write'; readonly session: number; readonly importance: number }
  | { readonly kind: 'days'; readonly n: number }
  | { readonly kind: 'consolidate'; readonly grouping: 'session' | 'semantic' }
  | { readonly kind: 'restore'; readonly memory: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('write' as const), session: fc.nat(2), importance: fc.constantFrom(0.1, 0.3, 0.6) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('days' as const), n: fc.integer({ min: 1, max: 10 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('consolidate' as const), grouping: fc.constantFrom('session' as const, 'semantic' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restore' as const), memory: fc.nat(20) }) },
);

const topics = ['the garden and the tomatoes', 'the garden and the roses', 'the trip to Lisbon'];

describe('replay after consolidation and restore', () => {
  it('(e) gives the same digests as the incremental run', async () => {
    const seen = { consolidated: 0, restored: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 24 }), async (steps) => {
        const dir = mkdtempSync(join(tmpdir(), 'lmem-consolidate-'));
        const env = manualEnvironment(Date.parse('2026-05-01T10:00:00Z'));
        const open = (grouping: 'session' | 'semantic') =>
          openLifecycleEngine(dir, env, { lifecycle: { consolidation: { grouping, similarity: 0.5 } } });
        let engine = await open('session');
        const ids: string[] = [];
        try {
          for (const [n, s] of steps.entries()) {
            if (s.kind === 'write') {
              const text = `Note ${n} about ${topics[s.session]}`;
              ids.push((await engine.writeMemory({ text, importance: s.importance, sessionId: `s${s.session}` })).memoryId);
            } else if (s.kind === 'days') {
              env.advance(s.n * dayMs);
              await engine.lifecycle.catchUp();
            } else if (s.kind === 'consolidate') {
              await engine.close();
              engine = await open(s.grouping);
              const result = await engine.lifecycle.consolidate();
              seen.consolidated += result.consolidated.length;
              for (const c of result.consolidated) {
                expect(c.mergedMemoryIds.every((id) => engine.documents.get(id)?.status === 'archived')).toBe(true);
                const sources = engine.indexes.sources.of(c.memoryId).map((x) => x.messageId);
                expect(new Set(sources).size).toBe(sources.length);
              }
            } else {
              const memoryId = ids[s.memory % Math.max(1, ids.length)];
              if (memoryId && engine.documents.get(memoryId)?.status === 'archived') {
                await engine.restoreMemory(memoryId);
                seen.restored += 1;
              }
            }
          }
          await engine.indexes.catchUp();
          const incremental = digests(engine);
          expect(await replayedDigests(engine)).toEqual(incremental);
        } finally {
          await engine.close();
          removeStore(dir);
        }
      }),
      { numRuns: 6, examples: [[[
        ...[0, 0, 0, 1, 1, 1].map((session) => ({ kind: 'write' as const, session, importance: 0.3 })),
        { kind: 'days', n: 8 }, { kind: 'consolidate', grouping: 'session' }, { kind: 'restore', memory: 0 },
        { kind: 'write', session: 2, importance: 0.1 }, { kind: 'days', n: 9 }, { kind: 'consolidate', grouping: 'semantic' },
      ]]] },
    );
    // The runs did consolidate and restore, or the property says little.
    expect(seen.consolidated).toBeGreaterThan(0);
    expect(seen.restored).toBeGreaterThan(0);
  }, 600_000);
});
