import { isLegalAtomTransition } from '../events/atom.js';
import type { EventOf } from '../events/catalog.js';
import type { RecordedEvent } from '../events/log/event-log.js';
import type { Projection, ProjectionTx } from './projection.js';
import { punctuation, without } from './text/chars.js';
import { ftsTokenizeOption, toFtsDocument } from './text/tokenizer.js';

/**
 * The normalised form of an atom's content: NFKC, lower case, without punctuation, symbols or
 * spaces. Two atoms with the same key say the same thing; the engine reinforces instead of
 * extracting twice. Kept here (not in the engine) because `memory_atoms.content_key` stores it:
 * changing it means bumping this projection's version.
 */
export function atomKey(content: string): string {
  return without(content.normalize('NFKC').toLowerCase(), punctuation);
}

/** Times are stored as UTC `...Z` strings so that string order is time order. */
const utc = (at: string | null): string | null => (at === null ? null : new Date(at).toISOString());

type Extracted = EventOf<'AtomExtracted'>;

/**
 * The atom's FTS rowid is the position of its AtomExtracted event: the same in every replay, and
 * stored in `fts_rowid` so a change is a rowid lookup (FTS5 cannot index its UNINDEXED columns).
 */
function insertAtom(tx: ProjectionTx, e: RecordedEvent<Extracted>): void {
  const d = e.data;
  const previous = tx.get<{ fts_rowid: number | null }>('SELECT fts_rowid FROM {memory_atoms} WHERE atom_id = ?', d.atomId);
  // An atom id seen again replaces the atom (an engine re-extraction); never two rows or two FTS documents.
  if (previous) {
    if (previous.fts_rowid !== null) tx.run('DELETE FROM {memory_atoms_fts} WHERE rowid = ?', previous.fts_rowid);
    tx.run('DELETE FROM {memory_atoms} WHERE atom_id = ?', d.atomId);
  }
  const rowid = Number(e.globalPosition);
  const at = e.metadata.occurredAt;
  tx.run(
    `INSERT INTO {memory_atoms} (atom_id, memory_id, atom_type, content, content_key, entities, importance, confidence,
       ttl_days, expires_at, status, reinforcement_count, decay_type, superseded_by, session_id, persona_id,
       created_at, updated_at, touched_at, fts_rowid)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', 0, ?, NULL, ?, ?, ?, ?, ?, ?)`,
    d.atomId,
    d.memoryId,
    d.atomType,
    d.content,
    atomKey(d.content),
    JSON.stringify(d.entities),
    d.importance,
    d.confidence,
    d.ttlDays,
    utc(d.expiresAt),
    d.decayType,
    d.sessionId,
    d.personaId,
    at,
    at,
    at,
    rowid,
  );
  tx.run(
    'INSERT INTO {memory_atoms_fts} (rowid, tokens, atom_id, memory_id, session_id, persona_id) VALUES (?, ?, ?, ?, ?, ?)',
    rowid,
    toFtsDocument(d.content),
    d.atomId,
    d.memoryId,
    d.sessionId,
    d.personaId,
  );
}

/** Forgetting is final: the content leaves the read model (as in `documents`), the row stays as a tombstone. */
function forgetAtoms(tx: ProjectionTx, where: 'atom_id' | 'memory_id', id: string, at: string): void {
  const rows = tx.all<{ fts_rowid: number | null }>(
    `SELECT fts_rowid FROM {memory_atoms} WHERE ${where} = ? AND status NOT IN ('forgotten', 'erased') ORDER BY atom_id`,
    id,
  );
  for (const row of rows) if (row.fts_rowid !== null) tx.run('DELETE FROM {memory_atoms_fts} WHERE rowid = ?', row.fts_rowid);
  tx.run(
    `UPDATE {memory_atoms} SET status = 'forgotten', content = '', content_key = '', entities = '[]', fts_rowid = NULL,
       updated_at = ? WHERE ${where} = ? AND status NOT IN ('forgotten', 'erased')`,
    at,
    id,
  );
}

function eraseAtom(tx: ProjectionTx, atomId: string): void {
  tx.run('DELETE FROM {memory_atoms_fts} WHERE rowid = (SELECT fts_rowid FROM {memory_atoms} WHERE atom_id = ?)', atomId);
  tx.run(`UPDATE {memory_atoms} SET status = 'erased', content = '', content_key = '', entities = '[]', fts_rowid = NULL WHERE atom_id = ?`, atomId);
}

/**
 * A state change moves the atom only from the state it was decided on, and only along the state
 * machine: a change decided on a stale read (a tick racing an edit) changes nothing, in every replay.
 * Expiry is a soft delete: out of keyword search, content kept until the atom is forgotten. Waking
 * a dormant atom counts as using it.
 */
function changeState(tx: ProjectionTx, e: RecordedEvent<EventOf<'AtomStateChanged'>>): void {
  const { atomId, from, to } = e.data;
  const row = tx.get<{ status: string; fts_rowid: number | null }>('SELECT status, fts_rowid FROM {memory_atoms} WHERE atom_id = ?', atomId);
  if (!row || row.status !== from || !isLegalAtomTransition(from, to)) return;
  if (to === 'forgotten') return forgetAtoms(tx, 'atom_id', atomId, e.metadata.occurredAt);
  const at = e.metadata.occurredAt;
  if (to === 'expired' && row.fts_rowid !== null) tx.run('DELETE FROM {memory_atoms_fts} WHERE rowid = ?', row.fts_rowid);
  tx.run(
    `UPDATE {memory_atoms} SET status = ?, superseded_by = ?, updated_at = ?, touched_at = CASE WHEN ? THEN ? ELSE touched_at END,
       fts_rowid = CASE WHEN ? THEN NULL ELSE fts_rowid END WHERE atom_id = ?`,
    to,
    e.data.supersededBy,
    at,
    from === 'dormant' && to === 'active' ? 1 : 0,
    at,
    to === 'expired' ? 1 : 0,
    atomId,
  );
}

/** A replay leaves an erased atom as the tombstone of its last extraction: nothing after it changes it. */
function eraseExtracted(tx: ProjectionTx, erased: readonly RecordedEvent[]): void {
  const last = new Map<string, RecordedEvent<Extracted>>();
  for (const e of erased) if (e.type === 'AtomExtracted') last.set(e.data.atomId, e);
  for (const e of last.values()) {
    insertAtom(tx, e);
    eraseAtom(tx, e.data.atomId);
  }
}

function applyOne(tx: ProjectionTx, e: RecordedEvent): void {
  switch (e.type) {
    case 'AtomExtracted':
      insertAtom(tx, e);
      // Its subject was erased (ADR 19): the row stays as a tombstone without content, as a forgotten atom's does.
      if (e.metadata.erased) eraseAtom(tx, e.data.atomId);
      return;
    case 'AtomReinforced':
      // The count is absolute (the engine's count after this reinforcement), so a replay cannot drift.
      // Only a live atom is reinforced: an expired one stays expired.
      tx.run(
        `UPDATE {memory_atoms} SET reinforcement_count = ?, expires_at = ?, updated_at = ?, touched_at = ?
         WHERE atom_id = ? AND status IN ('active', 'dormant')`,
        e.data.reinforcementCount,
        utc(e.data.expiresAt),
        e.metadata.occurredAt,
        e.metadata.occurredAt,
        e.data.atomId,
      );
      return;
    case 'AtomStateChanged':
      return changeState(tx, e);
    case 'MemoryForgotten':
      return forgetAtoms(tx, 'memory_id', e.data.memoryId, e.metadata.occurredAt);
    default:
      return;
  }
}

/** Atoms: the small typed statements the engine extracted from each memory, with their TTL and status. */
export const atomsProjection: Projection = {
  name: 'atoms',
  // 2: touched_at (last extraction, reinforcement or wake), the state machine guard, expiry leaves FTS;
  // 3: the index a tick reads its candidates from (ADR 29).
  version: 3,
  tables: [
    { name: 'memory_atoms', key: 'atom_id' },
    { name: 'memory_atoms_fts', key: 'atom_id' },
  ],
  handles: ['AtomExtracted', 'AtomReinforced', 'AtomStateChanged', 'MemoryForgotten'],
  init(tx) {
    const t = tx.table('memory_atoms');
    tx.exec(`
      CREATE TABLE {memory_atoms} (
        atom_id TEXT PRIMARY KEY,
        memory_id TEXT NOT NULL,
        atom_type TEXT NOT NULL,
        content TEXT NOT NULL,
        content_key TEXT NOT NULL,
        entities TEXT NOT NULL,
        importance REAL NOT NULL,
        confidence REAL NOT NULL,
        ttl_days REAL NOT NULL,
        expires_at TEXT,
        status TEXT NOT NULL,
        reinforcement_count INTEGER NOT NULL,
        decay_type TEXT NOT NULL,
        superseded_by TEXT,
        session_id TEXT,
        persona_id TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        touched_at TEXT NOT NULL,
        fts_rowid INTEGER UNIQUE
      );
      CREATE INDEX ${t}_memory ON {memory_atoms} (memory_id);
      CREATE INDEX ${t}_scope_key ON {memory_atoms} (session_id, persona_id, content_key);
      CREATE INDEX ${t}_status_expiry ON {memory_atoms} (status, expires_at);
      CREATE INDEX ${t}_status_decay ON {memory_atoms} (status, decay_type, touched_at, ttl_days);
      CREATE VIRTUAL TABLE {memory_atoms_fts} USING fts5(
        tokens, atom_id UNINDEXED, memory_id UNINDEXED, session_id UNINDEXED, persona_id UNINDEXED,
        tokenize = ${ftsTokenizeOption}
      );
    `);
  },
  apply(batch, tx) {
    for (const event of batch) applyOne(tx, event);
  },
  eraseInPlace: (erased, tx) => eraseExtracted(tx, erased),
};
