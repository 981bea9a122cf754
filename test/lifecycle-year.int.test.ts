import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../src/engine/engine.js';
import type { RecordedEvent } from '../src/events/log/event-log.js';
import { dayMs, digests, manualEnvironment, openLifecycleEngine, removeStore, replayedDigests, wholeTicks } from './support/lifecycle.js';

/*
 * A year of simulated days over one store, driven the way the scheduler drives it (the catch-up at
 * the tick hour, then what follows the day's ticks): a note every 4 days, a session of three every two weeks,
 * a recall a day, the decay policy archiving, daily consolidation, daily backups (the last month) pruned after a
 * week, an archived original restored every month. The counts in the log are checked against
 * the rules, each counted independently of the code under test.
 */

const days = 365;
/** Daily backups for the last days only: each copies and checks the whole log, and the suite has a time budget. */
const dailyBackupDays = 30;
const start = Date.parse('2026-01-05T00:00:00Z');
const noteEvery = 4;
const sessionEvery = 14;
const at = (day: number, hour: number) => new Date(start + day * dayMs + hour * 3_600_000);
const settings = (dailyBackups: boolean) => ({
  lifecycle: {
    decay: { policy: { action: 'archive', threshold: 0.05, minAgeDays: 30 } },
    consolidation: { daily: true },
  },
  backups: { daily: dailyBackups, keepDays: 7 },
});

/** Brings `active` (the memories the log says are active) up to the log's head from `seen`; returns the new head. */
async function followActive(engine: MemoryEngine, seen: bigint, active: Set<string>): Promise<bigint> {
  const events = await engine.log.readAll({ from: seen + 1n, limit: 10_000_000 });
  for (const e of events) {
    const memoryId = (e.data as { memoryId?: string }).memoryId ?? '';
    if (e.type === 'MemoryWritten' || e.type === 'MemoryRestored') active.add(memoryId);
    else if (e.type === 'MemoryArchived' || e.type === 'MemoryForgotten') active.delete(memoryId);
  }
  return events.at(-1)?.globalPosition ?? seen;
}

/** The TTL bases of the issue, in days. */
const ttlBase = { episode: 7, plan: 2, fact: 180, relation: 90, preference: 60, unknown: 30 } as const;

const of = (events: readonly RecordedEvent[], type: string) => events.filter((e) => e.type === type);
const data = <T>(e: RecordedEvent) => e.data as T;

describe('a simulated year', () => {
  it('decays, expires, consolidates, archives, backs up and restores as the rules say', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lmem-year-'));
    const env = manualEnvironment(start);
    let engine = await openLifecycleEngine(dir, env, settings(false));
    const expected = { decays: 0, restored: [] as string[] };
    const notes: number[] = [];
    const active = new Set<string>();
    let seen = 0n;
    try {
      for (let day = 0; day < days; day += 1) {
        if (day === days - dailyBackupDays) {
          // The store closed and opened again, now with daily backups.
          await engine.close();
          engine = await openLifecycleEngine(dir, env, settings(true));
        }
        // 04:00: the tick of the day (03:00 UTC) and what follows it, as the scheduler runs them.
        env.set(at(day, 4).getTime());
        // Every active memory below 1 and above the floor decays once a tick (importances start at 0.2 or 0.3),
        // and every one was written before today's 03:00; which are active is read from the log, not a read model.
        seen = await followActive(engine, seen, active);
        const due = active.size;
        const [tick] = await engine.lifecycle.catchUp();
        if (tick) expected.decays += due;
        // 10:00: the day's writes and a recall.
        env.set(at(day, 10).getTime());
        if (day % noteEvery === 0) {
          await engine.writeMemory({ text: `Day ${day}: Ann noted the weather in Lyon`, importance: 0.2 });
          notes.push(day);
        }
        const week = Math.floor(day / sessionEvery);
        if (day % sessionEvery === 0) {
          for (const what of ['planted', 'watered', 'picked']) {
            await engine.writeMemory({ text: `Ann ${what} the tomatoes in garden ${week}`, importance: 0.3, sessionId: `week-${week}` });
          }
        }
        await engine.recall({ query: `tomatoes garden ${week}`, scope: { mode: 'session', sessionId: `week-${week}` } });
        await engine.flushAccess();
        // Once a month, an archived original comes back.
        if (day % 30 === 15) {
          await engine.indexes.catchUp();
          const merged = of(await engine.log.readAll({ limit: 10_000_000 }), 'MemoriesConsolidated').flatMap((e) => data<{ mergedMemoryIds: string[] }>(e).mergedMemoryIds);
          const original = merged.find((id) => !expected.restored.includes(id) && engine.documents.get(id)?.status === 'archived');
          if (original) {
            await engine.restoreMemory(original);
            expected.restored.push(original);
          }
        }
      }
      await engine.indexes.catchUp();
      const events = await engine.log.readAll({ limit: 10_000_000 });
      const ticks = of(events, 'DecayTicked').map((e) => data<{ date: string; asOf: string; affected: number }>(e));
      const lastAsOf = Date.parse(ticks.at(-1)?.asOf ?? '');

      // Ticks: one per day from the store's first (the open records the embedding provider at 00:00), each whole.
      expect(ticks.map((t) => t.date)).toEqual(Array.from({ length: days }, (_, i) => at(i, 0).toISOString().slice(0, 10)));
      expect(wholeTicks(events)).toBe(days);
      expect(ticks.reduce((n, t) => n + t.affected, 0)).toBe(expected.decays);

      // Consolidation: a session is 7 days old at the tick 8 days after it; the sessions that reach it in the year.
      const consolidations = of(events, 'MemoriesConsolidated').map((e) => data<{ memoryId: string; mergedMemoryIds: string[] }>(e));
      const sessionDays = Array.from({ length: days }, (_, d) => d).filter((d) => d % sessionEvery === 0);
      expect(consolidations).toHaveLength(sessionDays.filter((d) => d + 8 < days).length);
      expect(consolidations.every((c) => c.mergedMemoryIds.length === 3)).toBe(true);
      const mergedIds = new Set(consolidations.flatMap((c) => c.mergedMemoryIds));

      // Restores: one a month, from the first month an original was archived; a restored one is never merged again.
      expect(expected.restored).toHaveLength(12);
      expect(of(events, 'MemoryRestored').map((e) => data<{ memoryId: string }>(e).memoryId)).toEqual(expected.restored);
      expect(mergedIds.size).toBe(3 * consolidations.length);
      expect(expected.restored.every((id) => mergedIds.has(id))).toBe(true);

      // The decay policy: every archive that is not a consolidation's is below 0.05 and 30 days old; nothing active is left that it should have taken.
      const archived = of(events, 'MemoryArchived').map((e) => ({ ...data<{ memoryId: string; reason: string }>(e), at: Date.parse(e.metadata.occurredAt), actor: e.metadata.actor }));
      const byPolicy = archived.filter((a) => a.actor === 'system:lifecycle');
      expect(byPolicy.length).toBeGreaterThan(50);
      for (const a of byPolicy) {
        expect(a.reason).toMatch(/fell below 0\.05 \(decay policy\)/);
        const doc = engine.documents.get(a.memoryId);
        expect(Date.parse(doc?.createdAt ?? '')).toBeLessThanOrEqual(a.at - 30 * dayMs);
      }
      expect(archived.filter((a) => a.actor !== 'system:lifecycle').every((a) => mergedIds.has(a.memoryId))).toBe(true);
      // A note decays 1% a day untouched: 0.2 x 0.99^n < 0.05 from n = 138 (within the 4-decimal rounding), its 138th tick the day it is archived.
      for (const m of engine.indexes.lifecycle.consolidationMemories(new Date(lastAsOf).toISOString())) {
        expect(m.importance < 0.05 && Date.parse(m.createdAt) <= lastAsOf - 30 * dayMs).toBe(false);
      }
      const notesArchived = byPolicy.filter((a) => engine.documents.get(a.memoryId)?.text.includes('the weather in Lyon')).length;
      expect(Math.abs(notesArchived - notes.filter((d) => d + 138 <= days - 1).length)).toBeLessThanOrEqual(1);

      // Atoms: a TTL of base(type) x (1 + importance) days when extracted, stretched by reinforcement; expired
      // after it, forgotten 7 days later, at the last tick. Each atom's expiry is the log's (its last extraction or reinforcement).
      const expiry = new Map<string, string | null>();
      for (const e of events) {
        if (e.type === 'AtomExtracted') {
          const { atomId, atomType, importance, ttlDays, expiresAt } = e.data;
          expect(ttlDays, atomId).toBeCloseTo(ttlBase[atomType] * (1 + importance), 9);
          expect(Date.parse(expiresAt ?? ''), atomId).toBe(Date.parse(e.metadata.occurredAt) + Math.round(ttlDays * dayMs));
          expiry.set(atomId, expiresAt);
        } else if (e.type === 'AtomReinforced') {
          expect(Date.parse(e.data.expiresAt ?? '')).toBeGreaterThanOrEqual(Date.parse(expiry.get(e.data.atomId) ?? ''));
          expiry.set(e.data.atomId, e.data.expiresAt);
        }
      }
      const atoms = engine.indexes.atoms.inStatuses(['active', 'dormant', 'expired', 'superseded', 'forgotten']);
      expect(atoms.map((a) => a.atomId).sort()).toEqual([...expiry.keys()].sort());
      const counts = { expired: 0, forgotten: 0, live: 0 };
      for (const a of atoms) {
        const expiresAt = expiry.get(a.atomId) ?? null;
        const expires = expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(expiresAt);
        if (expires + 7 * dayMs <= lastAsOf) {
          expect(a.status, a.atomId).toBe('forgotten');
          counts.forgotten += 1;
        } else if (expires <= lastAsOf) {
          expect(['expired', 'superseded'], a.atomId).toContain(a.status);
          counts.expired += 1;
        } else {
          expect(['active', 'dormant', 'superseded'], a.atomId).toContain(a.status);
          counts.live += 1;
        }
      }
      expect(counts.forgotten).toBeGreaterThan(0);
      expect(counts.expired + counts.live).toBeGreaterThan(0);
      expect(of(events, 'AtomReinforced').length).toBeGreaterThan(0);

      // Backups: one daily after each tick, one before each consolidation; pruned after 7 days, the rest still open and check.
      const taken = of(events, 'BackupTaken').map((e) => data<{ backupId: string; reason: string }>(e));
      expect(taken.filter((b) => b.reason === 'daily')).toHaveLength(dailyBackupDays);
      expect(taken.filter((b) => b.reason === 'before-consolidation')).toHaveLength(consolidations.length);
      const kept = engine.backups.list();
      expect(kept.length + of(events, 'BackupRemoved').length).toBe(taken.length);
      expect(kept.every((b) => Date.parse(b.takenAt) > at(days - 1, 4).getTime() - 7 * dayMs)).toBe(true);
      for (const b of kept.slice(0, 2)) await engine.backups.verify(b.backupId);

      // And the year replays to the same read models.
      const incremental = digests(engine);
      expect(await replayedDigests(engine)).toEqual(incremental);
    } finally {
      await engine.close();
      removeStore(dir);
    }
  }, 900_000);
});
