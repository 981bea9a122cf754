import type { EventOf } from '../events/catalog.js';
import type { RecordedEvent } from '../events/log/event-log.js';
import { erasedText } from '../events/log/sealing/specs.js';
import { applyDecayBatch } from './decays.js';
import type { Projection, ProjectionTx } from './projection.js';

/** A memory's metadata as read, in a fixed key order so replays produce the same bytes; `documents.metadata` holds it without the vitals. */
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

/**
 * What changes with time and use, kept beside `documents` in `memory_vitals` (ADR 29): a decay tick
 * rewrites these for every memory, and a narrow row is what makes that as cheap as a plain UPDATE.
 */
export type Vitals = Pick<DocumentMetadata, 'importance' | 'accessCount' | 'lastAccessedAt'>;
/** The metadata column's JSON: the document metadata without its vitals. */
export type StoredMetadata = Omit<DocumentMetadata, keyof Vitals>;

/** The stored metadata and the vitals joined again, in the metadata's key order. */
export function joinMetadata(stored: StoredMetadata, vitals: Vitals): DocumentMetadata {
  return {
    sessionId: stored.sessionId,
    personaId: stored.personaId,
    userId: stored.userId,
    importance: vitals.importance,
    status: stored.status,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
    topics: stored.topics,
    keyFacts: stored.keyFacts,
    participants: stored.participants,
    sentiment: stored.sentiment,
    accessCount: vitals.accessCount,
    lastAccessedAt: vitals.lastAccessedAt,
    mergedFrom: stored.mergedFrom,
    statusReason: stored.statusReason,
  };
}

function splitMetadata(meta: DocumentMetadata): { stored: StoredMetadata; vitals: Vitals } {
  const { importance, accessCount, lastAccessedAt, ...stored } = meta;
  return { stored, vitals: { importance, accessCount, lastAccessedAt } };
}

/** Writes one memory's whole metadata: the JSON, and the vitals row with the status and age a tick filters on. */
function storeMetadata(tx: ProjectionTx, memoryId: string, meta: DocumentMetadata, position: number, text: string | null, insert: boolean): void {
  const { stored, vitals } = splitMetadata(meta);
  if (insert) {
    // A memory id written again (another writer's log, an import of the same ids) is the later event's: it replaces the row.
    tx.run('INSERT OR REPLACE INTO {documents} (memory_id, text, metadata, last_position) VALUES (?, ?, ?, ?)', memoryId, text, JSON.stringify(stored), position);
    tx.run(
      'INSERT OR REPLACE INTO {memory_vitals} (memory_id, status, created_at, importance, access_count, last_accessed_at) VALUES (?, ?, ?, ?, ?, ?)',
      memoryId, meta.status, meta.createdAt, vitals.importance, vitals.accessCount, vitals.lastAccessedAt,
    );
    return;
  }
  tx.run(
    'UPDATE {documents} SET text = coalesce(?, text), metadata = ?, last_position = ? WHERE memory_id = ?',
    text, JSON.stringify(stored), position, memoryId,
  );
  tx.run(
    'UPDATE {memory_vitals} SET status = ?, importance = ?, access_count = ?, last_accessed_at = ? WHERE memory_id = ?',
    meta.status, vitals.importance, vitals.accessCount, vitals.lastAccessedAt, memoryId,
  );
}

function readMetadata(tx: ProjectionTx, memoryId: string): { text: string; meta: DocumentMetadata } | undefined {
  const row = tx.get<{ text: string; metadata: string; importance: number; access_count: number; last_accessed_at: string | null }>(
    `SELECT d.text, d.metadata, v.importance, v.access_count, v.last_accessed_at
     FROM {documents} d JOIN {memory_vitals} v ON v.memory_id = d.memory_id WHERE d.memory_id = ?`,
    memoryId,
  );
  if (!row) return undefined;
  const vitals = { importance: row.importance, accessCount: row.access_count, lastAccessedAt: row.last_accessed_at };
  return { text: row.text, meta: joinMetadata(JSON.parse(row.metadata) as StoredMetadata, vitals) };
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
  const current = readMetadata(tx, memoryId);
  if (!current) return;
  const meta = current.meta;
  const next = { ...meta, updatedAt: event.metadata.occurredAt, ...patch(meta, event) };
  // Erasure is final: no later status change brings an erased memory back.
  if (meta.status === 'erased') next.status = 'erased';
  storeMetadata(tx, memoryId, next, Number(event.globalPosition), text ?? null, false);
}

function applyOne(tx: ProjectionTx, e: RecordedEvent): void {
  switch (e.type) {
    case 'MemoryWritten':
      return storeMetadata(tx, e.data.memoryId, writtenMetadata(e), Number(e.globalPosition), e.data.text, true);
    case 'MemoryUpdated': {
      const { text, ...rest } = e.data.changes;
      return patchMetadata(tx, e.data.memoryId, e, () => rest, text);
    }
    case 'MemoryImportanceDecayed':
      // Importance and access count are not edits: updatedAt stays, and the documents row is not rewritten.
      return applyDecayBatch(tx, e.data.decays);
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
  const row = readMetadata(tx, memoryId);
  if (!row) return;
  const { stored } = splitMetadata({ ...row.meta, status: 'erased', topics: [], keyFacts: [], participants: [], sentiment: null });
  tx.run('UPDATE {documents} SET text = ?, metadata = ? WHERE memory_id = ?', row.text === '' ? '' : erasedText, JSON.stringify(stored), memoryId);
  tx.run("UPDATE {memory_vitals} SET status = 'erased' WHERE memory_id = ?", memoryId);
}

/** Memory text and metadata: the table every other read model and query starts from. */
export const documentsProjection: Projection = {
  name: 'documents',
  // 3: decays come in batches and halve the access count; 4: vitals in their own table (ADR 29).
  version: 4,
  tables: [
    { name: 'documents', key: 'memory_id' },
    { name: 'memory_vitals', key: 'memory_id' },
  ],
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
      CREATE INDEX ${t}_status ON {documents} (json_extract(metadata, '$.status'));
      CREATE INDEX ${t}_created ON {documents} (json_extract(metadata, '$.createdAt'));
      CREATE INDEX ${t}_session_created ON {documents} (json_extract(metadata, '$.sessionId'), json_extract(metadata, '$.createdAt'));
      CREATE TABLE {memory_vitals} (
        memory_id TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        importance REAL NOT NULL,
        access_count INTEGER NOT NULL,
        last_accessed_at TEXT
      ) WITHOUT ROWID;
    `);
  },
  apply(batch, tx) {
    for (const event of batch) applyOne(tx, event);
  },
  eraseInPlace(erased, tx) {
    for (const e of erased) if (e.type === 'MemoryWritten') eraseMemory(tx, e.data.memoryId);
  },
};
