import type { Projection, ProjectionTx } from './projection.js';
import type { RecordedEvent } from '../events/log/event-log.js';

/*
 * What the lifecycle scheduler needs to know of its own past (ADR 29): the decay ticks done, by
 * date, and the consolidations whose originals are not archived or forgotten yet (a consolidation
 * writes its new memory first and then settles each original in that memory's own stream; a
 * crash in between leaves members unsettled, which the next start finishes).
 */

function settle(tx: ProjectionTx, memoryId: string): void {
  tx.run('UPDATE {lifecycle_consolidations} SET settled = 1 WHERE original_id = ? AND settled = 0', memoryId);
}

function applyOne(tx: ProjectionTx, e: RecordedEvent): void {
  switch (e.type) {
    case 'DecayTicked':
      tx.run(
        `INSERT INTO {lifecycle_ticks} (date, tick_id, as_of, position, affected, atom_transitions) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (date) DO NOTHING`,
        e.data.date,
        e.data.tickId,
        new Date(e.data.asOf).toISOString(),
        Number(e.globalPosition),
        e.data.affected,
        e.data.atomTransitions,
      );
      return;
    case 'MemoriesConsolidated':
      for (const original of e.data.mergedMemoryIds) {
        tx.run(
          `INSERT INTO {lifecycle_consolidations} (consolidation_id, memory_id, original_id, retention, position, settled)
           VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT DO NOTHING`,
          e.data.consolidationId,
          e.data.memoryId,
          original,
          e.data.retention,
          Number(e.globalPosition),
        );
      }
      return;
    case 'MemoryArchived':
    case 'MemoryForgotten':
      return settle(tx, e.data.memoryId);
    default:
      return;
  }
}

export const lifecycleProjection: Projection = {
  name: 'lifecycle',
  version: 1,
  tables: [
    { name: 'lifecycle_ticks', key: 'date' },
    { name: 'lifecycle_consolidations', key: 'consolidation_id, original_id' },
  ],
  handles: ['DecayTicked', 'MemoriesConsolidated', 'MemoryArchived', 'MemoryForgotten'],
  init(tx) {
    const t = tx.table('lifecycle_consolidations');
    tx.exec(`
      CREATE TABLE {lifecycle_ticks} (
        date TEXT PRIMARY KEY,
        tick_id TEXT NOT NULL,
        as_of TEXT NOT NULL,
        position INTEGER NOT NULL,
        affected INTEGER NOT NULL,
        atom_transitions INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE {lifecycle_consolidations} (
        consolidation_id TEXT NOT NULL,
        memory_id TEXT NOT NULL,
        original_id TEXT NOT NULL,
        retention TEXT NOT NULL,
        position INTEGER NOT NULL,
        settled INTEGER NOT NULL,
        PRIMARY KEY (consolidation_id, original_id)
      ) WITHOUT ROWID;
      CREATE INDEX ${t}_original ON {lifecycle_consolidations} (original_id, settled);
    `);
  },
  apply(batch, tx) {
    for (const event of batch) applyOne(tx, event);
  },
  // Dates, counts and ids only, from events no subject key seals (sealing/specs.ts): an erasure changes nothing here.
  eraseInPlace: () => undefined,
};
