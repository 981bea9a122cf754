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
 * Whether JSON gives `value` back exactly (no undefined member, no -0, every number finite), so
 * that a row holding its JSON decodes to an equal event; freezes what it walks.
 */
function freezeJsonExact(value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (value === null || typeof value !== 'object') return true;
  Object.freeze(value);
  // for...in over a plain object or array: no array of values allocated per object (a tick's batch has 100k of them).
  for (const key in value) if (!freezeJsonExact((value as Record<string, unknown>)[key])) return false;
  return true;
}

/**
 * Decoded clear events by position, so the readers of one page (the projection runner and each
 * vector store read the log on their own) parse and validate a tick's big batches once, and the
 * appender can hand over the events it just validated and wrote (`rememberWritten`), so the first reader
 * does not parse them at all. Only rows without a sealed box are kept: their decoding is a function
 * of the row alone, whatever happens to the keys. A hit needs the row to be byte for byte the one
 * decoded (or written), so a row changed on disk is decoded (and refused) again. Entries are
 * frozen, as readers share them; the oldest go first once the kept rows' data passes `maxBytes`.
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
  const kept = (row: MemoRow): boolean => !row.data.includes(`"${envelopeField}"`) && row.data.length <= maxBytes;
  const keep = (row: MemoRow, event: RecordedEvent): void => {
    drop(row.globalPosition);
    entries.set(row.globalPosition, { row, event });
    bytes += row.data.length;
    for (const position of entries.keys()) {
      if (bytes <= maxBytes) break;
      drop(position);
    }
  };
  return {
    decode(row: MemoRow, decodeRow: () => RecordedEvent): RecordedEvent {
      const hit = entries.get(row.globalPosition);
      if (hit && sameRow(hit.row, row)) return hit.event;
      const event = decodeRow();
      if (kept(row)) keep(row, deepFreeze(event));
      return event;
    },
    /**
     * After an append commits: keeps the event just written as the decoding of its clear `row`
     * (the row is its JSON), unless JSON would not give it back exactly. Frozen in place: the
     * appender hands over an event nobody else holds.
     */
    rememberWritten(row: MemoRow, event: RecordedEvent): void {
      if (kept(row) && freezeJsonExact(event)) keep(row, event);
    },
  };
}
