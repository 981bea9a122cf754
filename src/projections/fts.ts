import type { EventOf } from '../events/catalog.js';
import type { RecordedEvent } from '../events/log/event-log.js';
import type { Projection, ProjectionTx } from './projection.js';
import { ftsTokenizeOption, toFtsDocument } from './text/tokenizer.js';

/*
 * Keyword search over memory text: an FTS5 table of pre-tokenized text (see text/tokenizer.ts)
 * with the scope and status beside it, kept in step with `documents`. A forgotten memory's row is
 * deleted. FTS5 cannot index its UNINDEXED columns, so `{keys}` maps a memory to its FTS rowid
 * (the position of its MemoryWritten event, the same in every replay) and a change is a rowid
 * lookup instead of a scan of the whole table. `{keys}` also holds each row's scope and status,
 * indexed by session and by user (version 3): a search in one session tells its matches by rowid
 * instead of reading every match's stored row (ADR 21).
 */

export const ftsTableName = 'livingmemory_memories_fts';
export const ftsKeysTableName = 'livingmemory_memories_fts_keys';
const keysTableName = ftsKeysTableName;

function rowidOf(tx: ProjectionTx, memoryId: string): number | undefined {
  return tx.get<{ fts_rowid: number }>('SELECT fts_rowid FROM {livingmemory_memories_fts_keys} WHERE memory_id = ?', memoryId)
    ?.fts_rowid;
}

function written(tx: ProjectionTx, e: RecordedEvent<EventOf<'MemoryWritten'>>): void {
  const d = e.data;
  const rowid = Number(e.globalPosition);
  // A memory id written again is the later event's, as in `documents`: its earlier row goes.
  forgotten(tx, d.memoryId);
  tx.run(
    `INSERT INTO {livingmemory_memories_fts} (rowid, tokens, memory_id, session_id, persona_id, user_id, status)
     VALUES (?, ?, ?, ?, ?, ?, 'active')`,
    rowid,
    toFtsDocument(d.text),
    d.memoryId,
    d.sessionId,
    d.personaId,
    d.userId,
  );
  tx.run(
    `INSERT INTO {livingmemory_memories_fts_keys} (memory_id, fts_rowid, session_id, persona_id, user_id, status)
     VALUES (?, ?, ?, ?, ?, 'active')`,
    d.memoryId,
    rowid,
    d.sessionId,
    d.personaId,
    d.userId,
  );
}

function setColumn(tx: ProjectionTx, memoryId: string, column: 'tokens' | 'status', value: string): void {
  const rowid = rowidOf(tx, memoryId);
  if (rowid === undefined) return;
  tx.run(`UPDATE {livingmemory_memories_fts} SET ${column} = ? WHERE rowid = ?`, value, rowid);
  if (column === 'status') tx.run('UPDATE {livingmemory_memories_fts_keys} SET status = ? WHERE memory_id = ?', value, memoryId);
}

function forgotten(tx: ProjectionTx, memoryId: string): void {
  const rowid = rowidOf(tx, memoryId);
  if (rowid === undefined) return;
  tx.run('DELETE FROM {livingmemory_memories_fts} WHERE rowid = ?', rowid);
  tx.run('DELETE FROM {livingmemory_memories_fts_keys} WHERE memory_id = ?', memoryId);
}

function applyOne(tx: ProjectionTx, e: RecordedEvent): void {
  switch (e.type) {
    case 'MemoryWritten':
      // An erased memory (ADR 19) has nothing to search.
      return e.metadata.erased ? undefined : written(tx, e);
    case 'MemoryUpdated': {
      const { text } = e.data.changes;
      if (e.metadata.erased) return forgotten(tx, e.data.memoryId);
      if (text !== undefined) setColumn(tx, e.data.memoryId, 'tokens', toFtsDocument(text));
      return;
    }
    case 'MemoryArchived':
      return setColumn(tx, e.data.memoryId, 'status', 'archived');
    case 'MemoryRestored':
      return setColumn(tx, e.data.memoryId, 'status', 'active');
    case 'MemoryForgotten':
      return forgotten(tx, e.data.memoryId);
    default:
      return;
  }
}

/** BM25 keyword search over memory text, read by `src/queries/keyword.ts`. */
export const ftsProjection: Projection = {
  name: 'fts',
  // 2: Chinese compounds of stop words (我的) are stop words too (stopwords.ts), so the tokens change.
  // 3: each row's scope and status in the keys table, indexed by session and by user (ADR 21).
  version: 3,
  tables: [
    { name: ftsTableName, key: 'memory_id' },
    { name: keysTableName, key: 'memory_id' },
  ],
  handles: ['MemoryWritten', 'MemoryUpdated', 'MemoryArchived', 'MemoryRestored', 'MemoryForgotten'],
  init(tx) {
    const keys = tx.table(keysTableName);
    tx.exec(`
      CREATE VIRTUAL TABLE {livingmemory_memories_fts} USING fts5(
        tokens,
        memory_id UNINDEXED,
        session_id UNINDEXED,
        persona_id UNINDEXED,
        user_id UNINDEXED,
        status UNINDEXED,
        tokenize = ${ftsTokenizeOption}
      );
      CREATE TABLE {livingmemory_memories_fts_keys} (
        memory_id TEXT PRIMARY KEY,
        fts_rowid INTEGER NOT NULL,
        session_id TEXT,
        persona_id TEXT,
        user_id TEXT,
        status TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX ${keys}_session ON {livingmemory_memories_fts_keys} (session_id, status, fts_rowid);
      CREATE INDEX ${keys}_user ON {livingmemory_memories_fts_keys} (user_id, status, fts_rowid);
    `);
  },
  apply(batch, tx) {
    for (const event of batch) applyOne(tx, event);
  },
  // A replay indexes no erased memory.
  eraseInPlace(erased, tx) {
    for (const e of erased) if (e.type === 'MemoryWritten' || e.type === 'MemoryUpdated') forgotten(tx, e.data.memoryId);
  },
};
