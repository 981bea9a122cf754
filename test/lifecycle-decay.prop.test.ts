import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stampEvents } from '../src/commands/decider.js';
import type { MemoryEngine } from '../src/engine/engine.js';
import { streams } from '../src/events/streams.js';
import { dayMs, digests, manualEnvironment, openLifecycleEngine, removeStore } from './support/lifecycle.js';

/*
 * The decay tick as a function of the log: (a) catching up k missed days equals k daily ticks,
 * (b) a tick is idempotent, (c) importances after any history equal a model of the rules.
 */

const start = Date.parse('2026-02-01T10:00:00Z');
const slot = (day: number) => start - 7 * 3_600_000 + day * dayMs; // day d's 03:00 UTC

type Step =
  | { readonly kind: 'write'; readonly importance: number }
  | { readonly kind: 'access'; readonly memory: number; readonly count: number }
  | { readonly kind: 'day' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('write' as const), importance: fc.integer({ min: 0, max: 10_000 }).map((x) => x / 10_000) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('access' as const), memory: fc.nat(20), count: fc.integer({ min: 1, max: 12 }) }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'day' as const }) },
);

async function withStore<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'lmem-decay-'));
  try {
    return await run(dir);
  } finally {
    removeStore(dir);
  }
}

/** Plays the steps; `tickDaily` ticks each day as it passes, otherwise the days are only lived through. */
async function play(engine: MemoryEngine, env: ReturnType<typeof manualEnvironment>, steps: readonly Step[], tickDaily: boolean) {
  const ids: string[] = [];
  let day = 0;
  for (const s of steps) {
    if (s.kind === 'write') {
      ids.push((await engine.writeMemory({ text: `memory ${ids.length}: the tea on day ${day}`, importance: s.importance })).memoryId);
    } else if (s.kind === 'access') {
      const memoryId = ids[s.memory % Math.max(1, ids.length)];
      if (!memoryId) continue;
      const at = env.now().toISOString();
      const batchId = env.newId();
      const body = { type: 'MemoriesAccessed' as const, schemaVersion: 1 as const, data: { batchId, accesses: [{ memoryId, count: s.count, lastAccessedAt: at }] } };
      await engine.log.append(streams.access, stampEvents([body], { commandId: batchId, now: at, actor: 'test' }));
    } else {
      day += 1;
      env.set(slot(day) + 3_600_000);
      if (tickDaily) await engine.lifecycle.catchUp();
    }
  }
  return { ids, day };
}

describe('decay ticks over random histories', () => {
  it('(a) catching up k missed days, on open or by `tick [--at]` in any number of calls, writes the same events and digests as k daily ticks; (b) a second tick of a date appends nothing', async () => {
    const days = fc.array(fc.constant({ kind: 'day' as const }), { minLength: 1, maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(fc.array(step.filter((s) => s.kind !== 'day'), { minLength: 1, maxLength: 12 }), days, fc.double({ min: 0, max: 1, noNaN: true }), async (before, gap, split) => {
        const run = (mode: 'daily' | 'catch-up' | 'manual') =>
          withStore(async (dir) => {
            const env = manualEnvironment(start);
            const engine = await openLifecycleEngine(dir, env);
            try {
              await play(engine, env, before, false);
              const head = await engine.log.headPosition();
              await play(engine, env, gap, mode === 'daily');
              const manual: string[] = [];
              if (mode === 'catch-up') await engine.lifecycle.catchUp();
              if (mode === 'manual') {
                // Two manual ticks: up to an instant somewhere in the gap, then up to now.
                const at = new Date(start + Math.floor(split * (env.ms - start)));
                for (const t of [await engine.lifecycle.tick(at), await engine.lifecycle.tick()]) manual.push(...t.ticks.map((r) => r.date));
              }
              await engine.indexes.catchUp();
              const after = await engine.log.headPosition();
              // (b) the same dates again, a tick now, and one before the last tick: nothing new, and each says why.
              await engine.lifecycle.catchUp();
              const again = await engine.lifecycle.tick();
              expect(again).toMatchObject({ ticks: [], nothing: 'not-due', decayed: 0 });
              expect(await engine.lifecycle.tick(new Date(start))).toMatchObject({ ticks: [], nothing: 'before-last-tick' });
              expect(await engine.log.headPosition()).toBe(after);
              const events = await engine.log.readAll({ from: head + 1n, limit: 100_000 });
              return { manual, events: events.map(({ type, data, metadata, streamId }) => ({ type, data, metadata, streamId })), digests: digests(engine) };
            } finally {
              await engine.close();
            }
          });
        const daily = await run('daily');
        const tickedDates = daily.events.filter((e) => e.type === 'DecayTicked').map((e) => (e.data as { date: string }).date);
        expect(tickedDates).toHaveLength(gap.length);
        const caughtUp = await run('catch-up');
        const manual = await run('manual');
        for (const other of [caughtUp, manual]) {
          expect(other.events).toEqual(daily.events);
          expect(other.digests).toEqual(daily.digests);
        }
        // The manual ticks said which dates they ticked: every missed one, once, in order.
        expect(manual.manual).toEqual(tickedDates);
      }),
      { numRuns: 8 },
    );
  }, 300_000);

  it('(c) the importance and access count of every memory equal a model of the rules after any history', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) =>
        withStore(async (dir) => {
          const env = manualEnvironment(start);
          const engine = await openLifecycleEngine(dir, env);
          try {
            // The model: the rule as written in the issue, kept apart from the code under test.
            const model = new Map<string, { importance: number; accesses: number; last: number | null; ticks: number; touched: boolean }>();
            let day = 0;
            const ids: string[] = [];
            for (const s of steps) {
              if (s.kind === 'write') {
                const { memoryId } = await engine.writeMemory({ text: `memory ${ids.length}`, importance: s.importance });
                ids.push(memoryId);
                model.set(memoryId, { importance: s.importance, accesses: 0, last: null, ticks: 0, touched: false });
              } else if (s.kind === 'access') {
                const memoryId = ids[s.memory % Math.max(1, ids.length)];
                const m = memoryId ? model.get(memoryId) : undefined;
                if (!memoryId || !m) continue;
                const at = env.now().toISOString();
                const body = { type: 'MemoriesAccessed' as const, schemaVersion: 1 as const, data: { batchId: env.newId(), accesses: [{ memoryId, count: s.count, lastAccessedAt: at }] } };
                await engine.log.append(streams.access, stampEvents([body], { commandId: body.data.batchId, now: at, actor: 'test' }));
                m.accesses += s.count;
                m.last = env.ms;
                m.touched = true;
              } else {
                day += 1;
                env.set(slot(day) + 3_600_000);
                await engine.lifecycle.catchUp();
                for (const m of model.values()) {
                  if (m.importance >= 1) continue;
                  const recent = m.last !== null && m.last >= slot(day) - 30 * dayMs ? 1 : 0.5;
                  const rate = 0.01 * (1 - 0.5 * Math.min(1, m.accesses / 10) * recent);
                  if (m.importance > 0.01) m.importance = Math.max(0.01, Math.round(m.importance * (1 - rate) * 10_000) / 10_000);
                  m.accesses = Math.floor(m.accesses * 0.5);
                  m.ticks += 1;
                }
              }
            }
            await engine.indexes.catchUp();
            for (const [memoryId, m] of model) {
              const doc = engine.documents.get(memoryId);
              expect(doc?.importance).toBeCloseTo(m.importance, 10);
              expect(doc?.accessCount).toBe(m.accesses);
              // Closed form for a memory never accessed: i0 x 0.99^n, within the 4-decimal rounding of n ticks.
              if (!m.touched && m.importance > 0.01) {
                const written = steps.filter((s) => s.kind === 'write')[ids.indexOf(memoryId)] as { importance: number };
                expect(Math.abs((doc?.importance ?? 0) - written.importance * 0.99 ** m.ticks)).toBeLessThanOrEqual(0.00005 * m.ticks + 1e-12);
              }
            }
          } finally {
            await engine.close();
          }
        }),
      ),
      { numRuns: 15 },
    );
  }, 300_000);
});
