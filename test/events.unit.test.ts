import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryDecider } from '../src/commands/memory/decider.js';
import type { MemoryEvent } from '../src/commands/memory/state.js';
import { currentVersions, domainEventSchema, eventTypes } from '../src/events/catalog.js';
import { ValidationError } from '../src/events/errors.js';
import { upcast } from '../src/events/upcasters.js';
import { testEventMetadata } from './support/events.js';

const meta = { eventId: 'e1', occurredAt: '2026-01-01T00:00:00.000Z', correlationId: 'c', causationId: 'c', actor: 'test' };

describe('event catalog', () => {
  it('covers the events of the whole mission, each with a schema version', () => {
    const expected = [
      'MessageRecorded', 'MessagesRolledBack', 'SessionReset', 'SummaryScheduled', 'SummaryCommitted', 'SummaryCompensated',
      'SummaryFailed', 'MessageCleaned',
      'MemoryWritten', 'MemoryUpdated', 'MemoriesAccessed', 'MemoryImportanceDecayed', 'MemoryArchived', 'MemoryRestored',
      'MemoryForgotten', 'MemoriesConsolidated', 'MemoryEmbeddingFailed', 'MemoryEmbeddingRepaired', 'AtomExtracted', 'AtomReinforced', 'AtomStateChanged', 'GraphEntriesLinked',
      'DecayTicked', 'ProviderFingerprintChanged', 'ProjectionRebuildStarted', 'ProjectionRebuildCompleted',
      'ProjectionRebuildFailed', 'BackupTaken',
      'MemoriesImportStarted', 'MemoriesImportCompleted', 'MemoriesImportRolledBack', 'SubjectErased', 'ErasureStarted',
      'ErasureStepCompleted', 'ErasureFinished',
      'MemoriesRecalled',
      'BackupRemoved', 'BackupRestored', 'BackupShredded', 'StoreVersionChanged', 'StoreMigrated',
    ];
    expect([...eventTypes].sort()).toEqual(expected.sort());
    for (const type of eventTypes) expect(currentVersions.get(type)).toBeGreaterThanOrEqual(1);
  });

  it('names the offending field of an invalid event', () => {
    const result = domainEventSchema.safeParse({
      type: 'MemoryForgotten',
      schemaVersion: 1,
      data: { memoryId: 'm1', reason: '' },
      metadata: meta,
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['data', 'reason']);
  });

  it('refuses unknown fields and metadata without a time', () => {
    const base = { type: 'MemoryRestored', schemaVersion: 1, data: { memoryId: 'm1' }, metadata: meta };
    expect(domainEventSchema.safeParse(base).success).toBe(true);
    expect(domainEventSchema.safeParse({ ...base, data: { memoryId: 'm1', extra: 1 } }).success).toBe(false);
    expect(domainEventSchema.safeParse({ ...base, metadata: { ...meta, occurredAt: 'yesterday' } }).success).toBe(false);
  });
});

const v1Arbitrary = fc.record({
  memoryId: fc.string({ minLength: 1, maxLength: 20 }),
  content: fc.string({ minLength: 1, maxLength: 60 }).filter((s) => s.trim().length > 0),
  importance: fc.double({ min: 0, max: 1, noNaN: true }),
  sessionId: fc.option(fc.string({ minLength: 1, maxLength: 10 }), { nil: null }),
  personaId: fc.option(fc.string({ minLength: 1, maxLength: 10 }), { nil: null }),
  tags: fc.array(fc.string({ minLength: 1, maxLength: 10 }), { maxLength: 4 }),
});

describe('upcasting', () => {
  it('(d) an old MemoryWritten upcast then replayed gives the state of the current shape', () => {
    fc.assert(
      fc.property(v1Arbitrary, (v1) => {
        const upcasted = upcast({ type: 'MemoryWritten', schemaVersion: 1, data: v1 });
        const old = domainEventSchema.parse({ ...upcasted, metadata: meta }) as MemoryEvent;
        const current = domainEventSchema.parse({
          type: 'MemoryWritten',
          schemaVersion: 2,
          metadata: meta,
          data: {
            memoryId: v1.memoryId, text: v1.content, importance: v1.importance, sessionId: v1.sessionId,
            personaId: v1.personaId, userId: null, topics: v1.tags, keyFacts: [], participants: [], sentiment: null, sources: [],
          },
        }) as MemoryEvent;
        const replay = (e: MemoryEvent) => memoryDecider.evolve(memoryDecider.initialState(), e);
        expect(replay(old)).toEqual(replay(current));
      }),
      { numRuns: 300 },
    );
  });

  it('reads a message stored before the turn user was recorded as one without a user', () => {
    const v1 = { sessionId: 's', messageId: 'm', index: 0, role: 'user', senderId: 'ann', senderName: null, content: 'hi', sentAt: '2026-01-01T00:00:00.000Z' };
    const recorded = upcast({ type: 'MessageRecorded', schemaVersion: 1, data: v1 });
    expect(recorded).toEqual({ type: 'MessageRecorded', schemaVersion: 2, data: { ...v1, userId: null } });
    expect(() => domainEventSchema.parse({ ...recorded, metadata: testEventMetadata() })).not.toThrow();
    const cleaned = upcast({ type: 'MessageCleaned', schemaVersion: 1, data: { sessionId: 's', messageId: 'm', index: 0, senderId: null, content: 'x' } });
    expect(cleaned.data).toMatchObject({ userId: null, content: 'x' });
  });

  it('refuses a version newer than this build and an old shape that does not parse', () => {
    expect(() => upcast({ type: 'MemoryWritten', schemaVersion: 9, data: {} })).toThrow(/newer than this build/);
    expect(() => upcast({ type: 'MemoryWritten', schemaVersion: 1, data: { memoryId: 'm' } })).toThrow(ValidationError);
    expect(() => upcast({ type: 'NoSuchEvent', schemaVersion: 1, data: {} })).toThrow(/unknown event type/);
  });
});
