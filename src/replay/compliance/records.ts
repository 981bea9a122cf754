import type { RecordedEvent } from '../../events/log/event-log.js';
import type { SubjectFilter } from './subject.js';

export const recordTypes = [
  'memory', 'source', 'memory_change', 'atom', 'atom_change', 'graph_entry', 'message', 'message_change', 'recall', 'forgetting',
] as const;
export type RecordType = (typeof recordTypes)[number];

/**
 * One line of a compliance export: what happened to one item, when, by whom, from which event.
 * `id` is the item (memory, atom, graph entry or message id); `details` holds the rest as JSON.
 */
export interface ComplianceRecord {
  readonly record: RecordType;
  readonly position: string;
  readonly occurredAt: string;
  readonly actor: string;
  readonly eventId: string;
  readonly correlationId: string;
  readonly id: string;
  readonly memoryId: string | null;
  readonly sessionId: string | null;
  readonly userId: string | null;
  readonly personaId: string | null;
  readonly text: string | null;
  readonly reason: string | null;
  readonly details: Readonly<Record<string, unknown>>;
}

export const csvColumns = [
  'record', 'position', 'occurred_at', 'actor', 'event_id', 'correlation_id', 'id', 'memory_id', 'session_id', 'user_id', 'persona_id', 'text', 'reason', 'details',
] as const;

/** The record as a CSV row, in `csvColumns` order. */
export const csvRowOf = (r: ComplianceRecord): (string | null)[] => [
  r.record, r.position, r.occurredAt, r.actor, r.eventId, r.correlationId, r.id, r.memoryId, r.sessionId, r.userId, r.personaId, r.text, r.reason,
  JSON.stringify(r.details),
];

type Fields = Partial<Omit<ComplianceRecord, 'record' | 'id' | 'position' | 'occurredAt' | 'actor' | 'eventId' | 'correlationId'>>;

/** The export's records for one event the subject filter admitted. */
export function recordsOf(e: RecordedEvent, filter: SubjectFilter): ComplianceRecord[] {
  const make = (record: RecordType, id: string, fields: Fields = {}): ComplianceRecord => ({
    record, id, position: e.globalPosition.toString(), occurredAt: e.metadata.occurredAt, actor: e.metadata.actor,
    eventId: e.metadata.eventId, correlationId: e.metadata.correlationId,
    memoryId: null, sessionId: null, userId: null, personaId: null, text: null, reason: null, details: {}, ...fields,
  });
  const forgot = (kind: string, id: string, reason: string, fields: Fields = {}) => make('forgetting', id, { reason, ...fields, details: { kind } });
  switch (e.type) {
    case 'MemoryWritten': {
      const { memoryId, text, sessionId, userId, personaId, sources, ...rest } = e.data;
      return [
        make('memory', memoryId, { memoryId, text, sessionId, userId, personaId, details: rest }),
        ...sources.map((s) =>
          make('source', s.messageId, { memoryId, sessionId: s.sessionId, text: s.content, details: { role: s.role, senderId: s.senderId, senderName: s.senderName, at: s.at } }),
        ),
      ];
    }
    case 'MemoryUpdated':
      return [make('memory_change', e.data.memoryId, { memoryId: e.data.memoryId, details: { change: 'updated', ...e.data.changes } })];
    case 'MemoryArchived':
      return [make('memory_change', e.data.memoryId, { memoryId: e.data.memoryId, reason: e.data.reason, details: { change: 'archived' } })];
    case 'MemoryRestored':
      return [make('memory_change', e.data.memoryId, { memoryId: e.data.memoryId, details: { change: 'restored' } })];
    case 'MemoryImportanceDecayed':
      return e.data.decays.filter((d) => filter.hasMemory(d.memoryId)).map((d) =>
        make('memory_change', d.memoryId, {
          memoryId: d.memoryId, reason: `decay tick ${e.data.tickId}`,
          details: { change: 'importance decayed', from: d.from, to: d.to, accessFrom: d.accessFrom, accessTo: d.accessTo },
        }),
      );
    case 'MemoriesConsolidated':
      return [e.data.memoryId, ...e.data.mergedMemoryIds].filter(filter.hasMemory).map((id) =>
        make('memory_change', id, {
          memoryId: id, reason: e.data.reason,
          details: { change: 'consolidated', into: e.data.memoryId, merged: e.data.mergedMemoryIds, grouping: e.data.grouping, retention: e.data.retention },
        }),
      );
    case 'MemoryForgotten':
      return [forgot('memory', e.data.memoryId, e.data.reason, { memoryId: e.data.memoryId })];
    case 'AtomExtracted': {
      const { atomId, memoryId, content, sessionId, personaId, ...rest } = e.data;
      return [make('atom', atomId, { memoryId, text: content, sessionId, personaId, details: rest })];
    }
    case 'AtomReinforced':
      return [make('atom_change', e.data.atomId, { memoryId: e.data.byMemoryId, reason: e.data.reason, details: { change: 'reinforced', count: e.data.reinforcementCount, expiresAt: e.data.expiresAt } })];
    case 'AtomStateChanged':
      return e.data.to === 'forgotten'
        ? [forgot('atom', e.data.atomId, e.data.reason)]
        : [make('atom_change', e.data.atomId, { reason: e.data.reason, details: { change: 'state', from: e.data.from, to: e.data.to, supersededBy: e.data.supersededBy } })];
    case 'GraphEntriesLinked': {
      const { memoryId, sessionId, personaId, nodes, edges } = e.data;
      return e.data.entries.map((entry) =>
        make('graph_entry', entry.entryId, {
          memoryId, sessionId, personaId, text: entry.text,
          details: { nodes: nodes.filter((n) => entry.nodeKeys.includes(n.key)), edges: edges.filter((g) => entry.nodeKeys.includes(g.source) || entry.nodeKeys.includes(g.target)) },
        }),
      );
    }
    case 'MessageRecorded': {
      const { messageId, sessionId, content, senderId, ...rest } = e.data;
      return [make('message', messageId, { sessionId, userId: senderId, text: content, details: rest })];
    }
    case 'MessageCleaned':
      return [make('message_change', e.data.messageId, { sessionId: e.data.sessionId, text: e.data.content, details: { change: 'cleaned of injected text' } })];
    case 'MessagesRolledBack':
      return filter.dropMessages(e.data.sessionId, e.data.messageIds).map((id) => forgot('message', id, e.data.reason, { sessionId: e.data.sessionId }));
    case 'SessionReset':
      return filter.dropMessages(e.data.sessionId).map((id) => forgot('message', id, e.data.reason, { sessionId: e.data.sessionId }));
    case 'MemoriesRecalled':
      return [make('recall', e.data.messageId, { sessionId: e.data.sessionId, reason: e.data.error, details: { memoryIds: e.data.memoryIds, scores: e.data.scores, injectedChars: e.data.injectedChars } })];
    default:
      return [];
  }
}
