import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Environment } from '../src/engine/clock.js';
import type { MemoryEngine } from '../src/engine/engine.js';
import type { RecordedEvent } from '../src/events/log/event-log.js';
import { dayMs, digests, manualEnvironment, openLifecycleEngine, removeStore, wholeTicks } from './support/lifecycle.js';

/*
 * The scheduler as the engine runs it: the missed days on open, then the timer at the tick hour,
 * tracked tasks, and a close that stops the timer first and waits a bounded time.
 */

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lmem-scheduler-'));
});
afterEach(() => removeStore(dir));

/** Writes a few memories on 2026-02-25 and closes the store. */
async function seed(memories = 3): Promise<void> {
  const env = manualEnvironment(Date.parse('2026-02-25T10:00:00Z'), 'seed');
  const engine = await openLifecycleEngine(dir, env);
  for (let i = 0; i < memories; i += 1) await engine.writeMemory({ text: `memory ${i}: Ann waters the roses`, importance: 0.4 });
  await engine.close();
}

/** The real clock shifted so that it reads `at` now: real timers fire at the shifted times. */
function shiftedClock(at: string, prefix = 'run'): Environment {
  const offset = Date.parse(at) - Date.now();
  let n = 0;
  return { now: () => new Date(Date.now() + offset), newId: () => `${prefix}-${(n += 1)}` };
}

const ticks = async (engine: MemoryEngine): Promise<RecordedEvent[]> =>
  (await engine.log.readAll({ limit: 1_000_000 })).filter((e) => e.type === 'DecayTicked');
const dates = async (engine: MemoryEngine) => (await ticks(engine)).map((e) => (e.data as { date: string }).date);

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the lifecycle scheduler', () => {
  it('ticks every missed day on open, in order, then ticks at the hour while the engine is open', async () => {
    await seed();
    // 02:59:59.3 on March 1st: the ticks of Feb 26, 27 and 28 were missed; March 1st's comes in 0.7 s.
    const engine = await openLifecycleEngine(dir, shiftedClock('2026-03-01T02:59:59.300Z'), {}, { scheduler: true });
    try {
      await engine.lifecycle.scheduler.idle();
      expect(await dates(engine)).toEqual(['2026-02-26', '2026-02-27', '2026-02-28']);
      expect(engine.lifecycle.status().nextTick).toBe('2026-03-01T03:00:00.000Z');
      await until(async () => (await dates(engine)).length === 4);
      expect(await dates(engine)).toEqual(['2026-02-26', '2026-02-27', '2026-02-28', '2026-03-01']);
      await until(async () => engine.lifecycle.status().nextTick === '2026-03-02T03:00:00.000Z', 5_000);
      expect(engine.lifecycle.status().scheduler).toMatchObject({ running: true, lastError: null });
    } finally {
      await engine.close();
    }
  });

  it('close stops the scheduler first, then waits for its tasks no longer than the bound', async () => {
    await seed(1);
    const engine = await openLifecycleEngine(dir, shiftedClock('2026-03-01T12:00:00Z'), { conversation: { shutdownTimeoutMs: 200 } }, { scheduler: true });
    await engine.lifecycle.scheduler.idle();
    // A task that never ends (a summarizer that hangs): close must not wait for it forever.
    void engine.lifecycle.scheduler.track(() => new Promise<never>(() => undefined));
    expect(engine.lifecycle.status().scheduler.tasks).toBe(1);
    const head = await engine.log.headPosition();
    await engine.close();
    // Nothing is appended by a stopped scheduler, not even the ticks that come due later.
    const reopened = await openLifecycleEngine(dir, manualEnvironment(Date.parse('2026-03-01T12:00:00Z'), 'check'));
    try {
      expect(await reopened.log.headPosition()).toBe(head);
    } finally {
      await reopened.close();
    }
  });

  it('a close in the middle of a long catch-up leaves whole ticks only; the next open ticks the rest, as one catch-up would', async () => {
    await seed();
    const at = '2026-06-01T12:00:00Z';
    const engine = await openLifecycleEngine(dir, manualEnvironment(Date.parse(at), 'a'), {}, { scheduler: true });
    // Stop it as soon as the first tick is in the log.
    while (engine.indexes.lifecycle.lastTick() === undefined) await new Promise((resolve) => setImmediate(resolve));
    await engine.close();
    const expected = Array.from({ length: 96 }, (_, i) => new Date(Date.parse('2026-02-26') + i * dayMs).toISOString().slice(0, 10));
    const between = await openLifecycleEngine(dir, manualEnvironment(Date.parse(at), 'b'));
    try {
      const done = await dates(between);
      expect(done.length).toBeLessThan(expected.length);
      expect(done).toEqual(expected.slice(0, done.length));
      expect(wholeTicks(await between.log.readAll({ limit: 1_000_000 }))).toBe(done.length);
    } finally {
      await between.close();
    }
    const resumed = await openLifecycleEngine(dir, manualEnvironment(Date.parse(at), 'c'), {}, { scheduler: true });
    try {
      await resumed.lifecycle.scheduler.idle();
      expect(await dates(resumed)).toEqual(expected);
      await resumed.indexes.catchUp();
      // The same days ticked in one go, on a copy of the seed: the same read models.
      const once = await digestOfOneCatchUp(at);
      expect(digests(resumed)).toEqual(once);
    } finally {
      await resumed.close();
    }
  }, 120_000);
});

async function digestOfOneCatchUp(at: string): Promise<Record<string, string>> {
  const other = mkdtempSync(join(tmpdir(), 'lmem-scheduler-once-'));
  const keep = dir;
  dir = other;
  try {
    await seed();
    const engine = await openLifecycleEngine(dir, manualEnvironment(Date.parse(at), 'd'));
    try {
      await engine.lifecycle.catchUp();
      await engine.indexes.catchUp();
      return digests(engine);
    } finally {
      await engine.close();
    }
  } finally {
    removeStore(other);
    dir = keep;
  }
}
