import type { SourceMessage } from '../events/fields.js';
import type { Projection } from './projection.js';

/*
 * The conversation messages each memory was built from, kept apart from its text: they never
 * enter keyword search or embeddings. Every written memory has a row, with `[]` when it had no
 * sources, so "no sources" and "unknown memory" differ; a forgotten memory's row is deleted.
 */

/** A source in a fixed key order, so every replay stores the same bytes. */
function canonical(source: SourceMessage): SourceMessage {
  return {
    messageId: source.messageId,
    sessionId: source.sessionId,
    role: source.role,
    senderId: source.senderId,
    senderName: source.senderName,
    content: source.content,
    at: source.at,
  };
}

export const sourcesProjection: Projection = {
  name: 'memory_sources',
  version: 1,
  tables: [{ name: 'memory_sources', key: 'memory_id' }],
  handles: ['MemoryWritten', 'MemoryForgotten'],
  init(tx) {
    tx.exec(`
      CREATE TABLE {memory_sources} (
        memory_id TEXT PRIMARY KEY,
        sources TEXT NOT NULL
      ) WITHOUT ROWID;
    `);
  },
  apply(batch, tx) {
    for (const e of batch) {
      if (e.type === 'MemoryWritten') {
        tx.run('INSERT OR REPLACE INTO {memory_sources} (memory_id, sources) VALUES (?, ?)', e.data.memoryId, JSON.stringify(e.data.sources.map(canonical)));
      } else if (e.type === 'MemoryForgotten') {
        tx.run('DELETE FROM {memory_sources} WHERE memory_id = ?', e.data.memoryId);
      }
    }
  },
  // The erased sources read as []; a forgotten memory has no row to change.
  eraseInPlace(erased, tx) {
    for (const e of erased) {
      if (e.type === 'MemoryWritten') tx.run('UPDATE {memory_sources} SET sources = ? WHERE memory_id = ?', JSON.stringify(e.data.sources), e.data.memoryId);
    }
  },
};
