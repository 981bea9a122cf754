import { randomBytes, type KeyObject } from 'node:crypto';
import type { SqliteDatabase } from '../sqlite-database.js';
import type { SubjectRef } from '../../subjects.js';
import { deriveDataKey } from './cipher.js';

export type { SubjectKind, SubjectRef } from '../../subjects.js';

/**
 * Subject keys in `subject_keys`, beside the log but outside it: the log's rows (and its hash
 * chain) never change, only a key row is deleted. Key ids come from AUTOINCREMENT, so an id is never
 * reused and a new key for an erased subject never opens what the old key sealed.
 */
export function createKeystore(db: SqliteDatabase) {
  db.exec(`
    CREATE TABLE IF NOT EXISTS subject_keys (
      key_id INTEGER PRIMARY KEY AUTOINCREMENT,
      kind TEXT NOT NULL,
      subject_id TEXT NOT NULL,
      key BLOB NOT NULL,
      UNIQUE (kind, subject_id)
    );
  `);
  const stmt = {
    bySubject: db.prepare<[string, string], { keyId: number }>('SELECT key_id AS keyId FROM subject_keys WHERE kind = ? AND subject_id = ?'),
    byId: db.prepare<[number], { key: Buffer }>('SELECT key FROM subject_keys WHERE key_id = ?'),
    insert: db.prepare<[string, string, Buffer]>('INSERT INTO subject_keys (kind, subject_id, key) VALUES (?, ?, ?)'),
    remove: db.prepare<[string, string], { keyId: number }>('DELETE FROM subject_keys WHERE kind = ? AND subject_id = ? RETURNING key_id AS keyId'),
    // The key ids of a memory's MemoryWritten, for the events that name only the memory.
    memoryKeys: db.prepare<[string], { k: string | null }>(
      `SELECT json_extract(data, '$."$sealed".k') AS k FROM events
       WHERE stream_id = ? AND type = 'MemoryWritten' ORDER BY stream_revision DESC LIMIT 1`,
    ),
  };
  // Derived data keys by their key-id list; erasure clears it, so a shredded key never opens anything here again.
  const derived = new Map<string, KeyObject>();

  return {
    /** The current key id of a subject, created on first use (call inside the append transaction). */
    keyIdFor(subject: SubjectRef): number {
      const found = stmt.bySubject.get(subject.kind, subject.id);
      if (found) return found.keyId;
      return Number(stmt.insert.run(subject.kind, subject.id, randomBytes(32)).lastInsertRowid);
    },
    /** The data key of an event sealed under `keyIds`, or null when any of those keys is gone. */
    dataKey(keyIds: readonly number[]): KeyObject | null {
      const cacheKey = keyIds.join(',');
      const cached = derived.get(cacheKey);
      if (cached) return cached;
      const keys: Buffer[] = [];
      for (const id of keyIds) {
        const row = stmt.byId.get(id);
        if (!row) return null;
        keys.push(row.key);
      }
      const key = deriveDataKey(keys, keyIds);
      derived.set(cacheKey, key);
      return key;
    },
    /** The key ids that sealed the memory's (last) MemoryWritten in stream `streamId`, if any. */
    memoryKeyIds(streamId: string): number[] | undefined {
      const k = stmt.memoryKeys.get(streamId)?.k;
      return typeof k === 'string' ? (JSON.parse(k) as number[]) : undefined;
    },
    /** The key id a subject has now, without creating one. */
    currentKeyId(subject: SubjectRef): number | undefined {
      return stmt.bySubject.get(subject.kind, subject.id)?.keyId;
    },
    /** Deletes the subject's key (call inside the erasure transaction); returns the key ids destroyed. */
    shred(subject: SubjectRef): number[] {
      const ids = stmt.remove.all(subject.kind, subject.id).map((r) => r.keyId);
      derived.clear();
      return ids;
    },
  };
}

export type Keystore = ReturnType<typeof createKeystore>;
