import type { EventOf } from '../events/catalog.js';
import type { RecordedEvent } from '../events/log/event-log.js';
import { erasedText } from '../events/log/sealing/specs.js';
import type { Projection, ProjectionTx } from './projection.js';

/** What `documents.metadata` holds, in a fixed key order so replays produce the same bytes. */
export interface DocumentMetadata {
  sessionId: string | null;
  personaId: string | null;
  userId: string | null;
  importance: number;
  status: 'active' | 'archived' | 'forgotten' | 'erased';
  createdAt: string;
  updatedAt: string;
  topics: string[];
  keyFacts: string[];
  participants: string[];
  sentiment: string | null;
  accessCount: number;
  lastAccessedAt: string | null;
  mergedFrom: string[];
  statusReason: string | null;
}

type Patch = (meta: DocumentMetadata, event: RecordedEvent) => Partial<DocumentMetadata>;

/** The metadata of a freshly written memory, in the stored key order. */
export function writtenMetadata(e: EventOf<'MemoryWritten'>): DocumentMetadata {
  const d = e.data;
  return {
    sessionId: d.sessionId,
    personaId: d.personaId,
    userId: d.userId,
    importance: d.importance,
    // Its subject was erased (ADR 19): the row shows it, text and labels read as erased.
    status: e.metadata.erased ? 'erased' : 'active',
    createdAt: e.metadata.occurredAt,
    updatedAt: e.metadata.occurredAt,
    topics: d.topics,
    keyFacts: d.keyFacts,
    participants: d.participants,
    sentiment: d.sentiment,
    accessCount: 0,
    lastAccessedAt: null,
    mergedFrom: [],
    statusReason: null,
  };
}

function patchMetadata(tx: ProjectionTx, memoryId: string, event: RecordedEvent, patch: Patch, text?: string): void {
  const row = tx.get<{ metadata: string }>('SELECT metadata FROM {documents} WHERE memory_id = ?', memoryId);
  if (!row) return;
  const meta = JSON.parse(row.metadata) as DocumentMetadata;
  const next = { ...meta, updatedAt: event.metadata.occurredAt, ...patch(meta, event) };
  // Erasure is final: no later status change brings an erased memory back.
  if (meta.status === 'erased') next.status = 'erased';
  tx.run(
    'UPDATE {documents} SET text = coalesce(?, text), metadata = ?, last_position = ? WHERE memory_id = ?',
    text ?? null,
    JSON.stringify(next),
    Number(event.globalPosition),
    memoryId,
  );
}

/**
 * A tick's decays, one statement per memory (a tick touches every memory: no JSON round trip in
 * JavaScript). The importance moves only from the value the tick decided on, so a change that
 * landed in between is kept; the access count loses what the tick took, never more than it has.
 * Importance and access count are not edits: updatedAt stays. Ticks store 4-decimal values,
 * which SQLite writes as JavaScript would.
 */
function applyDecays(tx: ProjectionTx, e: RecordedEvent<EventOf<'MemoryImportanceDecayed'>>): void {
  const position = Number(e.globalPosition);
  for (const d of e.data.decays) {
    tx.run(
      `UPDATE {documents} SET last_position = ?, metadata = json_set(metadata,
         '$.importance', CASE WHEN json_extract(metadata, '$.importance') = ? THEN ? ELSE json_extract(metadata, '$.importance') END,
         '$.accessCount', CAST(max(0, json_extract(metadata, '$.accessCount') - ?) AS INTEGER))
       WHERE memory_id = ? AND json_extract(metadata, '$.status') <> 'erased'`,
      position,
      d.from,
      d.to,
      d.accessFrom - d.accessTo,
      d.memoryId,
    );
  }
}

function applyOne(tx: ProjectionTx, e: RecordedEvent): void {
  switch (e.type) {
    case 'MemoryWritten':
      tx.run(
        'INSERT INTO {documents} (memory_id, text, metadata, last_position) VALUES (?, ?, ?, ?)',
        e.data.memoryId,
        e.data.text,
        JSON.stringify(writtenMetadata(e)),
        Number(e.globalPosition),
      );
      return;
    case 'MemoryUpdated': {
      const { text, ...rest } = e.data.changes;
      return patchMetadata(tx, e.data.memoryId, e, () => rest, text);
    }
    case 'MemoryImportanceDecayed':
      return applyDecays(tx, e);
    case 'MemoryArchived':
      return patchMetadata(tx, e.data.memoryId, e, () => ({ status: 'archived', statusReason: e.data.reason }));
    case 'MemoryRestored':
      return patchMetadata(tx, e.data.memoryId, e, () => ({ status: 'active', statusReason: null }));
    case 'MemoryForgotten':
      // The text leaves the read model; what was forgotten stays answerable from the log.
      return patchMetadata(tx, e.data.memoryId, e, () => ({ status: 'forgotten', statusReason: e.data.reason }), '');
    case 'MemoriesConsolidated':
      return patchMetadata(tx, e.data.memoryId, e, () => ({ mergedFrom: e.data.mergedMemoryIds }));
    case 'MemoriesAccessed':
      for (const access of e.data.accesses) {
        // Access statistics are not a change of the memory: updatedAt stays as it was.
        patchMetadata(tx, access.memoryId, e, (m) => ({
          accessCount: m.accessCount + access.count,
          lastAccessedAt: access.lastAccessedAt,
          updatedAt: m.updatedAt,
        }));
      }
      return;
    default:
      return;
  }
}

/**
 * In place, what a replay makes of an erased memory: status erased, labels erased, the text erased
 * unless a forget emptied it (the last word on the text then was the forget's, in either replay).
 */
function eraseMemory(tx: ProjectionTx, memoryId: string): void {
  const row = tx.get<{ text: string; metadata: string }>('SELECT text, metadata FROM {documents} WHERE memory_id = ?', memoryId);
  if (!row) return;
  const meta = JSON.parse(row.metadata) as DocumentMetadata;
  const next: DocumentMetadata = { ...meta, status: 'erased', topics: [], keyFacts: [], participants: [], sentiment: null };
  tx.run('UPDATE {documents} SET text = ?, metadata = ? WHERE memory_id = ?', row.text === '' ? '' : erasedText, JSON.stringify(next), memoryId);
}

/** Memory text and metadata: the table every other read model and query starts from. */
export const documentsProjection: Projection = {
  name: 'documents',
  // 3: decays come in batches and halve the access count (ADR 29).
  version: 3,
  tables: [{ name: 'documents', key: 'memory_id' }],
  handles: [
    'MemoryWritten',
    'MemoryUpdated',
    'MemoryImportanceDecayed',
    'MemoryArchived',
    'MemoryRestored',
    'MemoryForgotten',
    'MemoriesConsolidated',
    'MemoriesAccessed',
  ],
  init(tx) {
    const t = tx.table('documents');
    tx.exec(`
      CREATE TABLE {documents} (
        memory_id TEXT PRIMARY KEY,
        text TEXT NOT NULL,
        metadata TEXT NOT NULL,
        last_position INTEGER NOT NULL
      );
      CREATE INDEX ${t}_session ON {documents} (json_extract(metadata, '$.sessionId'));
      CREATE INDEX ${t}_persona ON {documents} (json_extract(metadata, '$.personaId'));
      CREATE INDEX ${t}_importance ON {documents} (json_extract(metadata, '$.importance'));
      CREATE INDEX ${t}_status ON {documents} (json_extract(metadata, '$.status'));
      CREATE INDEX ${t}_created ON {documents} (json_extract(metadata, '$.createdAt'));
      CREATE INDEX ${t}_session_created ON {documents} (json_extract(metadata, '$.sessionId'), json_extract(metadata, '$.createdAt'));
    `);
  },
  apply(batch, tx) {
    for (const event of batch) applyOne(tx, event);
  },
  eraseInPlace(erased, tx) {
    for (const e of erased) if (e.type === 'MemoryWritten') eraseMemory(tx, e.data.memoryId);
  },
};
