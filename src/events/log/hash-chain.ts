import { hash } from 'node:crypto';

/** The link before the log's first event. */
export const genesisHash: Buffer = Buffer.alloc(32);

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
 * sha256(previous hash || every column of the row, each as UTF-8 with a 4-byte length prefix),
 * so no two different rows share their bytes and one changed byte anywhere in a row changes its link.
 */
export function chainHash(previous: Uint8Array, row: ChainRow): Buffer {
  const fields = [
    String(row.globalPosition),
    row.streamId,
    String(row.streamRevision),
    row.eventId,
    row.type,
    String(row.schemaVersion),
    row.data,
    row.metadata,
  ];
  let size = previous.length;
  for (const field of fields) size += 4 + Buffer.byteLength(field, 'utf8');
  const bytes = Buffer.allocUnsafe(size);
  bytes.set(previous, 0);
  let offset = previous.length;
  for (const field of fields) {
    const length = bytes.write(field, offset + 4, 'utf8');
    bytes.writeUInt32BE(length, offset);
    offset += 4 + length;
  }
  // One-shot hash: no Hash object per event, which is most of the cost on a batched append.
  return hash('sha256', bytes, 'buffer');
}
