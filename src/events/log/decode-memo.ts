import type { RecordedEvent } from './event-log.js';
import { envelopeField } from './sealing/group.js';

/** A stored row as the memo compares it: everything its decoding depends on. */
export interface MemoRow {
  readonly globalPosition: number;
  readonly streamId: string;
  readonly streamRevision: number;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: string;
  readonly metadata: string;
}

interface Entry {
  readonly row: MemoRow;
  readonly event: RecordedEvent;
}

const sameRow = (a: MemoRow, b: MemoRow): boolean =>
  a.data === b.data && a.metadata === b.metadata && a.type === b.type && a.schemaVersion === b.schemaVersion
  && a.streamId === b.streamId && a.streamRevision === b.streamRevision;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * Decoded clear events by position, so the readers of one page (the projection runner and each
 * vector store read the log on their own) parse and validate a tick's big batches once. Only rows
 * without a sealed box are kept: their decoding is a function of the row alone, whatever happens to
 * the keys. A hit needs the row to be byte for byte the one decoded, so a row changed on disk is
 * decoded (and refused) again. Entries are frozen, as readers share them; the oldest go first once
 * the kept rows' data passes `maxBytes`.
 */
export function createDecodeMemo(maxBytes = 16 * 1024 * 1024) {
  const entries = new Map<number, Entry>();
  let bytes = 0;
  const drop = (position: number): void => {
    const entry = entries.get(position);
    if (!entry) return;
    entries.delete(position);
    bytes -= entry.row.data.length;
  };
  return {
    decode(row: MemoRow, decodeRow: () => RecordedEvent): RecordedEvent {
      const hit = entries.get(row.globalPosition);
      if (hit && sameRow(hit.row, row)) return hit.event;
      const event = decodeRow();
      if (row.data.includes(`"${envelopeField}"`) || row.data.length > maxBytes) return event;
      drop(row.globalPosition);
      entries.set(row.globalPosition, { row, event: deepFreeze(event) });
      bytes += row.data.length;
      for (const position of entries.keys()) {
        if (bytes <= maxBytes) break;
        drop(position);
      }
      return event;
    },
  };
}
