import { hash } from 'node:crypto';

/** The link before the log's first event: 64 zeros. */
export const genesisHash: string = '0'.repeat(64);

/** One events row exactly as stored: the JSON columns are the stored text, never re-serialised objects. */
export interface ChainRow {
  readonly globalPosition: number;
  readonly streamId: string;
  readonly streamRevision: number;
  readonly eventId: string;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: string;
  readonly metadata: string;
}

/**
 * Lowercase hex of sha256 over the UTF-8 of: the previous link (hex), then every column of the row,
 * each as `<length in UTF-16 code units>:<text>`. The length prefixes keep two different rows from
 * sharing their bytes, so one changed byte anywhere in a row changes its link and every later one.
 * One string and one one-shot hash per event keep the cost of an append low (see ADR 16).
 */
export function chainHash(previous: string, row: ChainRow): string {
  return chainLink(previous, row.globalPosition, row.streamId, row.streamRevision, row.eventId, row.type, row.schemaVersion, row.data, row.metadata);
}

const piece = (text: string): string => `${text.length}:${text}`;

/** chainHash of the row's columns passed one by one: the append builds no row object for it. */
export function chainLink(
  previous: string,
  globalPosition: number,
  streamId: string,
  streamRevision: number,
  eventId: string,
  type: string,
  schemaVersion: number,
  data: string,
  metadata: string,
): string {
  const text =
    previous +
    piece(String(globalPosition)) +
    piece(streamId) +
    piece(String(streamRevision)) +
    piece(eventId) +
    piece(type) +
    piece(String(schemaVersion)) +
    piece(data) +
    piece(metadata);
  return hash('sha256', text, 'hex');
}
