import { describe, expect, it } from 'vitest';
import type { DomainEvent } from '../src/events/catalog.js';
import type { RecordedEvent } from '../src/events/log/event-log.js';
import { recordsOf } from '../src/replay/compliance/records.js';
import { createSubjectFilter, parseSubject, type ComplianceSubject } from '../src/replay/compliance/subject.js';
import { memoryWrittenEvent, testEventMetadata } from './support/events.js';

const at = (events: readonly DomainEvent[]): RecordedEvent[] =>
  events.map((e, i) => ({ ...e, streamId: 'x', streamRevision: BigInt(i), globalPosition: BigInt(i + 1) }) as RecordedEvent);
const ev = <T extends DomainEvent['type']>(type: T, data: Extract<DomainEvent, { type: T }>['data']): DomainEvent =>
  ({ type, schemaVersion: type === 'MessageRecorded' || type === 'MessageCleaned' ? 2 : 1, data, metadata: testEventMetadata() }) as DomainEvent;
const message = (messageId: string, index: number, senderId: string | null, sessionId = 's1') =>
  ev('MessageRecorded', { sessionId, messageId, index, role: 'user', senderId, userId: null, senderName: null, content: `said ${messageId}`, sentAt: '2026-01-01T00:00:00.000Z' });
const source = (messageId: string, senderId: string | null, sessionId: string | null) =>
  ({ messageId, sessionId, role: 'user' as const, senderId, senderName: null, content: `said ${messageId}`, at: null });

/** The records an export of `subject` holds for these events, as "record id" strings. */
function exported(subject: ComplianceSubject, events: readonly DomainEvent[]): string[] {
  const filter = createSubjectFilter(subject);
  return at(events).flatMap((e) => (filter.admit(e) ? recordsOf(e, filter) : [])).map((r) => `${r.record} ${r.id}`);
}

describe('compliance subject', () => {
  it('takes exactly one of user, session, persona or all, naming the field otherwise', () => {
    expect(parseSubject({ persona: 'p1' })).toEqual({ kind: 'persona', id: 'p1' });
    expect(parseSubject({ all: true })).toEqual({ kind: 'all', id: null });
    expect(() => parseSubject({ user: 'u', all: true })).toThrow(/subject/);
    expect(() => parseSubject({})).toThrow(/subject/);
    expect(() => parseSubject({ session: ' ' })).toThrow(/session: must not be empty/);
  });

  it('follows a persona\'s memory to its atoms, graph entries, changes and forgetting, and nothing else', () => {
    const events = [
      memoryWrittenEvent('m1', 'one', { personaId: 'p1' }),
      memoryWrittenEvent('m2', 'two', { personaId: 'p2' }),
      ev('AtomExtracted', {
        atomId: 'a1', memoryId: 'm1', atomType: 'fact', content: 'c', entities: [], importance: 0.5, confidence: 1, ttlDays: 1,
        expiresAt: null, decayType: 'none', sessionId: null, personaId: null,
      }),
      ev('AtomStateChanged', { atomId: 'a1', from: 'active', to: 'forgotten', reason: 'asked', supersededBy: null }),
      ev('GraphEntriesLinked', { memoryId: 'm1', sessionId: null, personaId: null, entries: [{ entryId: 'g1', text: 'g', nodeKeys: [] }], nodes: [], edges: [] }),
      ev('MemoryArchived', { memoryId: 'm1', reason: 'old' }),
      ev('MemoryForgotten', { memoryId: 'm2', reason: 'other persona' }),
      ev('MemoryForgotten', { memoryId: 'm1', reason: 'asked' }),
    ];
    expect(exported({ kind: 'persona', id: 'p1' }, events)).toEqual([
      'memory m1', 'atom a1', 'forgetting a1', 'graph_entry g1', 'memory_change m1', 'forgetting m1',
    ]);
  });

  it('finds a session\'s and a sender\'s memories through their source messages', () => {
    const events = [memoryWrittenEvent('m1', 'one', { sources: [source('x1', 'bob', 's2'), source('x2', 'ann', 's1')] })];
    expect(exported({ kind: 'session', id: 's1' }, events)).toEqual(['memory m1', 'source x1', 'source x2']);
    expect(exported({ kind: 'user', id: 'ann' }, events)).toEqual(['memory m1', 'source x1', 'source x2']);
    expect(exported({ kind: 'user', id: 'carl' }, events)).toEqual([]);
  });

  it('forgets only the sender\'s own messages on a rollback, and their live ones on a reset', () => {
    const events = [
      message('u1', 0, 'ann'), message('u2', 1, 'bob'), message('u3', 2, 'ann'), message('u4', 3, 'ann'),
      ev('MessagesRolledBack', { sessionId: 's1', fromIndex: 2, messageIds: ['u3', 'u2'], sessionRevision: 1, lastSummarizedIndex: 0, reason: 'host' }),
      ev('SessionReset', { sessionId: 's1', sessionRevision: 2, reason: 'reset' }),
      message('u5', 0, 'ann', 's9'),
    ];
    expect(exported({ kind: 'user', id: 'ann' }, events)).toEqual([
      'message u1', 'message u3', 'message u4', 'forgetting u3', 'forgetting u1', 'forgetting u4', 'message u5',
    ]);
    expect(exported({ kind: 'session', id: 's1' }, events)).toEqual([
      'message u1', 'message u2', 'message u3', 'message u4', 'forgetting u3', 'forgetting u2', 'forgetting u1', 'forgetting u4',
    ]);
  });
});
