import type { EventOf } from '../events/catalog.js';
import type { RecordedEvent } from '../events/log/event-log.js';
import { idsAscending } from './decays.js';
import type { Projection, ProjectionTx } from './projection.js';

/** Whose history an event belongs to: a memory, an atom, or both. */
export interface Subject {
  readonly kind: 'memory' | 'atom';
  readonly id: string;
}

/**
 * The memories and atoms an event touches. `atomMemory` says which memory an atom came from, so
 * an atom's state change also shows in its memory's history.
 */
export function subjectsOf(event: RecordedEvent, atomMemory: (atomId: string) => string | undefined): Subject[] {
  const memory = (id: string): Subject => ({ kind: 'memory', id });
  const atom = (id: string): Subject[] => {
    const owner = atomMemory(id);
    return [{ kind: 'atom', id }, ...(owner ? [memory(owner)] : [])];
  };
  switch (event.type) {
    case 'MemoryImportanceDecayed':
      return event.data.decays.map((d) => memory(d.memoryId));
    case 'MemoryWritten':
    case 'MemoryUpdated':
    case 'MemoryArchived':
    case 'MemoryRestored':
    case 'MemoryForgotten':
    case 'MemoryEmbeddingFailed':
    case 'MemoryEmbeddingRepaired':
    case 'GraphEntriesLinked':
      return [memory(event.data.memoryId)];
    case 'MemoriesConsolidated':
      return [event.data.memoryId, ...event.data.mergedMemoryIds].map(memory);
    case 'MemoriesAccessed':
      return event.data.accesses.map((a) => memory(a.memoryId));
    case 'MemoriesRecalled':
      return event.data.memoryIds.map(memory);
    case 'AtomExtracted':
      return [{ kind: 'atom', id: event.data.atomId }, memory(event.data.memoryId)];
    case 'AtomReinforced':
      return [...atom(event.data.atomId), ...(event.data.byMemoryId === null ? [] : [memory(event.data.byMemoryId)])];
    case 'AtomStateChanged':
      return atom(event.data.atomId);
    case 'SummaryCommitted':
    case 'SummaryCompensated':
    case 'MemoriesImportStarted':
    case 'MemoriesImportRolledBack':
      return event.data.memoryIds.map(memory);
    default:
      return [];
  }
}

/**
 * A tick's decay batch names up to a thousand memories, and a tick over 100k memories writes 100 of
 * them: one row per batch (its id range and ids) instead of one row per memory keeps the tick's
 * cost in this index to a hundred inserts (ADR 29). `positionsOf` finds a memory's batches by range.
 */
function indexDecayBatch(tx: ProjectionTx, event: RecordedEvent<EventOf<'MemoryImportanceDecayed'>>): void {
  const named = event.data.decays.map((d) => d.memoryId);
  // The decider writes ids in order and once each; anything else is put in order here.
  const ids = idsAscending(event.data.decays) ? named : [...new Set(named)].sort();
  tx.run(
    'INSERT OR IGNORE INTO {decay_batches} (position, first_id, last_id, memory_ids) VALUES (?, ?, ?, ?)',
    Number(event.globalPosition),
    ids[0],
    ids.at(-1),
    JSON.stringify(ids),
  );
}

function indexEvent(tx: ProjectionTx, event: RecordedEvent): void {
  if (event.type === 'MemoryImportanceDecayed') return indexDecayBatch(tx, event);
  if (event.type === 'AtomExtracted') {
    tx.run('INSERT OR IGNORE INTO {atom_memories} (atom_id, memory_id) VALUES (?, ?)', event.data.atomId, event.data.memoryId);
  }
  const owner = (atomId: string): string | undefined =>
    tx.get<{ memory_id: string }>('SELECT memory_id FROM {atom_memories} WHERE atom_id = ?', atomId)?.memory_id;
  // One row per subject even when an event names it twice (a memory merged into itself).
  const seen = new Set<string>();
  for (const subject of subjectsOf(event, owner)) {
    const key = `${subject.kind} ${subject.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    tx.run(
      'INSERT OR IGNORE INTO {memory_events} (subject_id, kind, position) VALUES (?, ?, ?)',
      subject.id,
      subject.kind,
      Number(event.globalPosition),
    );
  }
}

/** Which log positions touched each memory and atom: the index behind `lmem history`. */
export const memoryEventsProjection: Projection = {
  name: 'memory_events',
  // 2: decay batches indexed by id range, one row per batch.
  version: 2,
  tables: [
    { name: 'memory_events', key: 'subject_id, kind, position' },
    { name: 'decay_batches', key: 'position' },
    { name: 'atom_memories', key: 'atom_id' },
  ],
  handles: [
    'MemoryWritten',
    'MemoryUpdated',
    'MemoryImportanceDecayed',
    'MemoryArchived',
    'MemoryRestored',
    'MemoryForgotten',
    'MemoryEmbeddingFailed',
    'MemoryEmbeddingRepaired',
    'GraphEntriesLinked',
    'MemoriesConsolidated',
    'MemoriesAccessed',
    'MemoriesRecalled',
    'AtomExtracted',
    'AtomReinforced',
    'AtomStateChanged',
    'SummaryCommitted',
    'SummaryCompensated',
    'MemoriesImportStarted',
    'MemoriesImportRolledBack',
  ],
  init(tx) {
    tx.exec(`
      CREATE TABLE {memory_events} (
        subject_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (subject_id, kind, position)
      ) WITHOUT ROWID;
      CREATE TABLE {decay_batches} (
        position INTEGER PRIMARY KEY,
        first_id TEXT NOT NULL,
        last_id TEXT NOT NULL,
        memory_ids TEXT NOT NULL
      );
      CREATE INDEX {decay_batches}_range ON {decay_batches} (first_id, last_id);
      CREATE TABLE {atom_memories} (
        atom_id TEXT PRIMARY KEY,
        memory_id TEXT NOT NULL
      ) WITHOUT ROWID;
    `);
  },
  apply(batch, tx) {
    for (const event of batch) indexEvent(tx, event);
  },
  // Positions and ids only, all in clear: an erasure changes nothing here.
  eraseInPlace: () => undefined,
};
