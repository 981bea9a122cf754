import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AtomStatus } from '../src/events/atom.js';
import type { RecordedEvent } from '../src/events/log/event-log.js';
import type { MemoryEngine } from '../src/engine/engine.js';
import { createAccessBatcher } from '../src/engine/access-batcher.js';
import { loadConfig } from '../src/engine/config.js';
import { accessAtomEvents, atomsAtHead } from '../src/engine/lifecycle/access.js';
import { dayMs, manualEnvironment, openLifecycleEngine, removeStore } from './support/lifecycle.js';

/*
 * Accesses decide atom moves from the state the log implies, not from a read model that has not
 * seen the batch before. The counterexample atom-lifecycle.prop.test.ts found:
 * [write "Erin prefers jazz to rock" importance 0, 31 days, recall, recall].
 */

/** Every AtomStateChanged of `atomId` as `from -> to`, and whether each started where the log had the atom. */
function movesOf(events: readonly RecordedEvent[], atomId: string): { moves: string[]; stale: string[] } {
  let status: AtomStatus | null = null;
  const moves: string[] = [];
  const stale: string[] = [];
  for (const e of events) {
    if (e.type === 'AtomExtracted' && e.data.atomId === atomId) status = 'active';
    if (e.type !== 'AtomStateChanged' || e.data.atomId !== atomId) continue;
    moves.push(`${e.data.from} -> ${e.data.to}`);
    if (e.data.from !== status) stale.push(`${e.data.from} -> ${e.data.to} at ${e.globalPosition}, the log had ${status}`);
    status = e.data.to;
  }
  return { moves, stale };
}

const dirs: string[] = [];
const engines: MemoryEngine[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  for (const dir of dirs.splice(0)) removeStore(dir);
});

/** An engine on a fresh store with a clock of its own, closed and removed after the test. */
async function openEngine() {
  const dir = mkdtempSync(join(tmpdir(), 'lmem-atom-access-'));
  dirs.push(dir);
  const env = manualEnvironment(Date.parse('2026-04-01T10:00:00Z'));
  const engine = await openLifecycleEngine(dir, env);
  engines.push(engine);
  return { engine, env };
}

/** Given: one memory whose atom went dormant over 31 days. */
async function dormantAtom() {
  const { engine, env } = await openEngine();
  const { memoryId } = await engine.writeMemory({ text: 'Erin prefers jazz to rock', importance: 0 });
  env.advance(31 * dayMs);
  await engine.lifecycle.catchUp();
  await engine.indexes.catchUp();
  const [atom] = engine.indexes.atoms.ofMemory(memoryId);
  expect(atom?.status).toBe('dormant');
  const recall = async () => {
    await engine.recall({ query: 'Alice plans to visit Paris tomorrow', scope: { mode: 'global' } });
    await engine.flushAccess();
  };
  return { engine, env, memoryId, atomId: (atom as { atomId: string }).atomId, recall };
}

describe('an access wakes a dormant atom once', () => {
  it('given a dormant atom, when two recalls return its memory one after the other, then it wakes once and every move starts where the log has it', async () => {
    const { engine, atomId, recall } = await dormantAtom();
    await recall();
    await recall();
    const { moves, stale } = movesOf(await engine.log.readAll({ limit: 1_000_000 }), atomId);
    expect(stale).toEqual([]);
    expect(moves).toEqual(['active -> dormant', 'dormant -> active']);
    await engine.indexes.catchUp();
    expect(engine.indexes.atoms.get(atomId)?.status).toBe('active');
  });

  it('given a dormant atom, when a recall wakes it and a write restates it, then the write reinforces it without waking it again', async () => {
    const { engine, atomId, recall } = await dormantAtom();
    await recall();
    await engine.writeMemory({ text: 'Erin prefers jazz to rock', importance: 0 });
    const { moves, stale } = movesOf(await engine.log.readAll({ limit: 1_000_000 }), atomId);
    expect(stale).toEqual([]);
    expect(moves).toEqual(['active -> dormant', 'dormant -> active']);
  });

  it('given a dormant atom, when another writer wakes it after a batch decided to, then the batch is refused by its revision and decides again', async () => {
    const { engine, env, memoryId, atomId } = await dormantAtom();
    const settings = loadConfig({ overrides: { dataDir: '/unused' } }).lifecycle.atoms;
    const fresh = atomsAtHead(engine.log, engine.indexes.runner);
    const decide = accessAtomEvents(engine.indexes.atoms, settings, fresh);
    // The other writer: a second batcher on the same log, as another process would have.
    const other = createAccessBatcher(engine.log, env, { effects: decide });
    let decisions = 0;
    const batcher = createAccessBatcher(engine.log, env, {
      effects: async (accesses) => {
        decisions += 1;
        const decided = await decide(accesses);
        if (decisions === 2) {
          other.record([memoryId], env.now().toISOString());
          await other.flush();
        }
        return decided;
      },
      written: fresh,
    });
    // A batch of statistics alone first, so the batcher knows the stream's revision.
    batcher.record(['no-such-memory'], env.now().toISOString());
    await batcher.flush();
    batcher.record([memoryId], env.now().toISOString());
    await batcher.flush();
    expect(decisions).toBe(3);
    const { moves, stale } = movesOf(await engine.log.readAll({ limit: 1_000_000 }), atomId);
    expect(stale).toEqual([]);
    expect(moves).toEqual(['active -> dormant', 'dormant -> active']);
  });
});

describe('a failed access batch', () => {
  it('given a batch whose effects failed, when the next batch is flushed, then it is written and the failure stayed with the first flush', async () => {
    const { engine, env, memoryId } = await dormantAtom();
    let failNext = true;
    const batcher = createAccessBatcher(engine.log, env, {
      effects: async () => {
        if (!failNext) return [];
        failNext = false;
        throw new Error('the atoms read model is down');
      },
    });
    const accessed = async () => (await engine.log.readAll({ limit: 1_000_000 })).filter((e) => e.type === 'MemoriesAccessed').length;
    const before = await accessed();
    batcher.record([memoryId], env.now().toISOString());
    await expect(batcher.flush()).rejects.toThrow(/read model is down/);
    batcher.record([memoryId], env.now().toISOString());
    await batcher.flush();
    expect(await accessed()).toBe(before + 1);
  });
});

describe('an access reinforces an active atom once its cooldown has passed', () => {
  it('given an active atom, when recalls return its memory within a day and after one, then only the later one reinforces it', async () => {
    const { engine, env } = await openEngine();
    const { memoryId } = await engine.writeMemory({ text: 'Erin prefers jazz to rock', importance: 0.9 });
    const recall = async () => {
      await engine.recall({ query: 'what music does Erin prefer, jazz or rock', scope: { mode: 'global' } });
      await engine.flushAccess();
    };
    const reinforced = async () => (await engine.log.readAll({ limit: 1_000_000 })).filter((e) => e.type === 'AtomReinforced').length;
    env.advance(23 * 3_600_000);
    await recall();
    expect(await reinforced()).toBe(0);
    env.advance(2 * 3_600_000);
    await recall();
    expect(await reinforced()).toBe(1);
    // Touched by that reinforcement: the next day starts again.
    env.advance(3_600_000);
    await recall();
    expect(await reinforced()).toBe(1);
    await engine.indexes.catchUp();
    expect(engine.indexes.atoms.ofMemory(memoryId)[0]?.reinforcementCount).toBe(1);
  });
});
