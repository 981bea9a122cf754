import type { Statement } from 'better-sqlite3';
import type { DomainEvent } from '../catalog.js';
import { chainLink } from './hash-chain.js';
import type { SqliteDatabase } from './sqlite-database.js';

/** Where the log stands before an append: the head's position and link, and the stream's revision. */
export interface RowCursor {
  readonly position: number;
  readonly revision: number;
  readonly link: string;
}

const columnsPerRow = 9;
// Multi-row INSERTs: one statement call per chunk instead of one per event.
const chunk = 50;

/** A row as written, beside the event it stores: what the log's decode memo may keep once the append commits. */
export interface WrittenRow {
  readonly event: DomainEvent;
  readonly row: { globalPosition: number; streamId: string; streamRevision: number; type: string; schemaVersion: number; data: string; metadata: string };
}

/**
 * Writes the rows of one append (call inside its transaction): each row's link chains the one
 * before it (ADR 16), `datas` are the stored data columns (sealed where needed), in event order.
 * With `written`, each row is also pushed there as stored.
 */
export function createEventRowWriter(db: SqliteDatabase) {
  const inserts = new Map<number, Statement>();
  const insertFor = (rows: number): Statement => {
    let statement = inserts.get(rows);
    if (!statement) {
      const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
      statement = db.prepare(
        `INSERT INTO events (global_position, stream_id, stream_revision, event_id, type, schema_version, data, metadata, hash) VALUES ${values}`,
      );
      inserts.set(rows, statement);
    }
    return statement;
  };

  return (from: RowCursor, streamId: string, events: readonly DomainEvent[], datas: readonly string[], written?: WrittenRow[]): RowCursor => {
    let { position, revision, link } = from;
    for (let start = 0; start < events.length; start += chunk) {
      const end = Math.min(start + chunk, events.length);
      const params: unknown[] = new Array<unknown>((end - start) * columnsPerRow);
      let at = 0;
      for (let i = start; i < end; i += 1) {
        const event = events[i] as DomainEvent;
        const { type, schemaVersion, metadata } = event;
        const data = datas[i] as string;
        const meta = JSON.stringify(metadata);
        revision += 1;
        position += 1;
        link = chainLink(link, position, streamId, revision, metadata.eventId, type, schemaVersion, data, meta);
        written?.push({ event, row: { globalPosition: position, streamId, streamRevision: revision, type, schemaVersion, data, metadata: meta } });
        params[at++] = position;
        params[at++] = streamId;
        params[at++] = revision;
        params[at++] = metadata.eventId;
        params[at++] = type;
        params[at++] = schemaVersion;
        params[at++] = data;
        params[at++] = meta;
        params[at++] = link;
      }
      insertFor(end - start).run(...params);
    }
    return { position, revision, link };
  };
}
