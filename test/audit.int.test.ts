import { describe, expect, it } from 'vitest';
import { stampEvents } from '../src/commands/decider.js';
import type { MemoryEngine } from '../src/engine/engine.js';
import { streams } from '../src/events/streams.js';
import { useTestEngine } from './support/engine.js';

let engine: MemoryEngine;
useTestEngine((e) => (engine = e));

const meta = (commandId: string, actor: string) => ({ commandId, now: '2026-01-02T00:00:00.000Z', actor, correlationId: `corr-${commandId}`, causationId: `cause-${commandId}` });

describe('audit trail', () => {
  it('lists every event that created, changed, accessed, decayed, merged, archived or forgot a memory, with its metadata', async () => {
    const turn = { actor: 'agent:alice', correlationId: 'conversation-7', causationId: 'turn-3' };
    const { memoryId } = await engine.writeMemory({ text: 'Alice likes green tea', sessionId: 's1' }, turn);
    const other = await engine.writeMemory({ text: 'Alice drinks tea daily', sessionId: 's1' });
    await engine.updateMemory(memoryId, { importance: 0.9 }, { actor: 'user:bob', correlationId: 'cmd-update', causationId: 'cmd-update' });
    await engine.recall({ query: 'green tea', scope: { mode: 'global' } });
    await engine.flushAccess();
    await engine.log.append(streams.decay, stampEvents([{ type: 'DecayTicked', schemaVersion: 2, data: { tickId: 'tick-1', date: '2026-01-02', timeZone: 'UTC', asOf: '2026-01-02T00:00:00.000Z', decayRate: 0.1, affected: 1, atomTransitions: 0, settings: {} } }], meta('tick-1', 'system:decay')));
    await engine.log.append(streams.decayTick('2026-01-02'), stampEvents([{ type: 'MemoryImportanceDecayed', schemaVersion: 2, data: { tickId: 'tick-1', decays: [{ memoryId, from: 0.9, to: 0.8, accessFrom: 0, accessTo: 0 }] } }], meta('tick-1.m', 'system:decay')));
    await engine.log.append(streams.memory(other.memoryId), stampEvents([{ type: 'MemoriesConsolidated', schemaVersion: 2, data: { memoryId: other.memoryId, mergedMemoryIds: [other.memoryId, memoryId], consolidationId: 'merge-1', grouping: 'session', retention: 'archive', reason: 'same session' } }], meta('merge-1', 'system:consolidation')));
    await engine.archiveMemory(memoryId, 'stale');
    await engine.forgetMemory(memoryId, 'user asked', { actor: 'user:bob', correlationId: 'gdpr-1', causationId: 'request-9' });
    await engine.log.append(streams.access, stampEvents([{ type: 'MemoriesAccessed', schemaVersion: 1, data: { batchId: 'late', accesses: [{ memoryId, count: 2, lastAccessedAt: '2026-01-03T00:00:00.000Z' }] } }], meta('late', 'system:recall')));

    const history = await engine.history(memoryId);
    expect(history?.kind).toBe('memory');
    const entries = history?.entries ?? [];
    expect(entries.map((e) => e.type).filter((t) => !t.startsWith('Atom') && t !== 'GraphEntriesLinked')).toEqual([
      'MemoryWritten', 'MemoryUpdated', 'MemoriesAccessed', 'MemoryImportanceDecayed', 'MemoriesConsolidated', 'MemoryArchived', 'MemoryForgotten', 'MemoriesAccessed',
    ]);
    expect(entries.at(-1)?.description).toBe('accessed 2 times (batch late of 1 memory)');
    const positions = entries.map((e) => e.position);
    expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
    const byType = (type: string) => entries.find((e) => e.type === type);
    expect(byType('MemoryWritten')).toMatchObject({ actor: 'agent:alice', correlationId: 'conversation-7', causationId: 'turn-3', streamId: `memory-${memoryId}` });
    expect(byType('MemoryWritten')?.description).toContain('"Alice likes green tea"');
    expect(byType('MemoryUpdated')).toMatchObject({ actor: 'user:bob', description: 'updated importance' });
    expect(byType('MemoriesAccessed')).toMatchObject({ actor: 'system:recall', streamId: 'system-access' });
    expect(byType('MemoryImportanceDecayed')).toMatchObject({ causationId: 'cause-tick-1.m', description: 'importance decayed 0.9 -> 0.8 (tick tick-1)' });
    expect(byType('MemoriesConsolidated')?.description).toBe(`merged into ${other.memoryId} (session: same session; originals archived)`);
    expect(byType('MemoryForgotten')).toMatchObject({ actor: 'user:bob', correlationId: 'gdpr-1', causationId: 'request-9', description: 'forgotten: user asked' });
    for (const e of entries) expect(e.occurredAt).toMatch(/^2026-/);
    // The merge target sees the same event from its side.
    expect((await engine.history(other.memoryId))?.entries.find((e) => e.type === 'MemoriesConsolidated')?.description).toContain('consolidated from');
  });

  it('follows an atom from extraction through supersession, and shows it in its memory', async () => {
    const { memoryId } = await engine.writeMemory({ text: 'Alice likes green tea', sessionId: 's1' });
    const atom = engine.indexes.atoms.ofMemory(memoryId)[0];
    if (!atom) throw new Error('no atom extracted');
    await engine.updateMemory(memoryId, { text: 'Alice prefers black coffee' });
    const history = await engine.history(atom.atomId);
    expect(history?.kind).toBe('atom');
    expect(history?.entries.map((e) => e.type)).toEqual(['AtomExtracted', 'AtomStateChanged']);
    expect(history?.entries[1]?.description).toMatch(/active -> superseded: memory text updated/);
    expect((await engine.history(memoryId))?.entries.map((e) => e.type)).toContain('AtomStateChanged');
  });

  it('answers undefined for an id no event named', async () => {
    expect(await engine.history('no-such-id')).toBeUndefined();
  });
});
