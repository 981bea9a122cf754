import { describe, expect, it } from 'vitest';
import { stampEvents, type EventBody } from '../src/commands/decider.js';
import { DomainError } from '../src/commands/errors.js';
import type { MemoryCommand } from '../src/commands/memory/commands.js';
import { memoryDecider } from '../src/commands/memory/decider.js';
import type { MemoryEvent } from '../src/commands/memory/state.js';
import { deciderSpec, testMetadata } from './support/decider-spec.js';

const spec = deciderSpec(memoryDecider);
const metadata = testMetadata(1);
const data = {
  memoryId: 'm1',
  text: 'Alice likes green tea',
  importance: 0.6,
  sessionId: 's1',
  personaId: null,
  userId: 'alice',
  topics: ['tea'],
  keyFacts: [],
  participants: ['Alice'],
  sentiment: null,
  sources: [],
};
const written: EventBody<MemoryEvent> = { type: 'MemoryWritten', schemaVersion: 2, data };
const forgotten: EventBody<MemoryEvent> = { type: 'MemoryForgotten', schemaVersion: 1, data: { memoryId: 'm1', reason: 'asked' } };
const archived: EventBody<MemoryEvent> = { type: 'MemoryArchived', schemaVersion: 1, data: { memoryId: 'm1', reason: 'old' } };
const cmd = (c: Omit<MemoryCommand, 'metadata'>): MemoryCommand => ({ ...c, metadata }) as MemoryCommand;

describe('memory decider', () => {
  it('writes a new memory', () => {
    spec.given([]).when(cmd({ type: 'WriteMemory', data })).then([written]);
  });

  it('refuses to write the same memory twice', () => {
    spec.given([written]).when(cmd({ type: 'WriteMemory', data })).thenThrows(DomainError, /already exists/);
  });

  it('updates only what changed', () => {
    spec
      .given([written])
      .when(cmd({ type: 'UpdateMemory', data: { memoryId: 'm1', changes: { importance: 0.9, topics: ['tea'] } } }))
      .then([{ type: 'MemoryUpdated', schemaVersion: 1, data: { memoryId: 'm1', changes: { importance: 0.9 } } }]);
  });

  it('records nothing for an update that changes nothing', () => {
    spec
      .given([written])
      .when(cmd({ type: 'UpdateMemory', data: { memoryId: 'm1', changes: { text: data.text } } }))
      .then([]);
  });

  it('records a given importance even when the stream holds the same one (ticks decay it in their own streams)', () => {
    const decayed: EventBody<MemoryEvent> = {
      type: 'MemoryImportanceDecayed',
      schemaVersion: 2,
      data: { tickId: 't1', decays: [{ memoryId: 'm1', from: 0.6, to: 0.5, accessFrom: 0, accessTo: 0 }] },
    };
    spec
      .given([written, decayed])
      .when(cmd({ type: 'UpdateMemory', data: { memoryId: 'm1', changes: { importance: 0.5 } } }))
      .then([{ type: 'MemoryUpdated', schemaVersion: 1, data: { memoryId: 'm1', changes: { importance: 0.5 } } }]);
  });

  it('refuses an update of a memory that does not exist', () => {
    spec
      .given([])
      .when(cmd({ type: 'UpdateMemory', data: { memoryId: 'm1', changes: { importance: 0.2 } } }))
      .thenThrows(DomainError, /does not exist/);
  });

  it('refuses an update after forget', () => {
    spec
      .given([written, forgotten])
      .when(cmd({ type: 'UpdateMemory', data: { memoryId: 'm1', changes: { importance: 0.2 } } }))
      .thenThrows(DomainError, /forgotten/);
  });

  it('forgets once; forgetting again changes nothing', () => {
    spec.given([written]).when(cmd({ type: 'ForgetMemory', data: { memoryId: 'm1', reason: 'asked' } })).then([forgotten]);
    spec.given([written, forgotten]).when(cmd({ type: 'ForgetMemory', data: { memoryId: 'm1', reason: 'asked' } })).then([]);
  });

  it('archives and restores a living memory', () => {
    spec.given([written]).when(cmd({ type: 'ArchiveMemory', data: { memoryId: 'm1', reason: 'old' } })).then([archived]);
    spec.given([written, archived]).when(cmd({ type: 'ArchiveMemory', data: { memoryId: 'm1', reason: 'old' } })).then([]);
    spec
      .given([written, archived])
      .when(cmd({ type: 'RestoreMemory', data: { memoryId: 'm1' } }))
      .then([{ type: 'MemoryRestored', schemaVersion: 1, data: { memoryId: 'm1' } }]);
    spec.given([written]).when(cmd({ type: 'RestoreMemory', data: { memoryId: 'm1' } })).then([]);
  });

  it('takes no command for an erased memory: its write reads as erased, and an update would bring its text back in the clear', () => {
    const erasedWrite = stampEvents<MemoryEvent>([written], metadata).map((e) => ({ ...e, metadata: { ...e.metadata, erased: true as const } }));
    const state = erasedWrite.reduce(memoryDecider.evolve, memoryDecider.initialState());
    const decide = (c: Omit<MemoryCommand, 'metadata'>) => () => memoryDecider.decide(cmd(c), state);
    expect(decide({ type: 'UpdateMemory', data: { memoryId: 'm1', changes: { text: 'violin' } } })).toThrow(/erased/);
    expect(decide({ type: 'ArchiveMemory', data: { memoryId: 'm1', reason: 'old' } })).toThrow(/erased/);
    expect(decide({ type: 'RestoreMemory', data: { memoryId: 'm1' } })).toThrow(/erased/);
    expect(decide({ type: 'ForgetMemory', data: { memoryId: 'm1', reason: 'asked' } })()).toEqual([]);
    expect(memoryDecider.evolve(state, stampEvents<MemoryEvent>([archived], metadata)[0]!).status).toBe('erased');
  });

  it('never restores or archives a forgotten memory', () => {
    spec.given([written, forgotten]).when(cmd({ type: 'RestoreMemory', data: { memoryId: 'm1' } })).thenThrows(DomainError, /forgotten/);
    spec
      .given([written, forgotten])
      .when(cmd({ type: 'ArchiveMemory', data: { memoryId: 'm1', reason: 'x' } }))
      .thenThrows(DomainError, /forgotten/);
  });
});
