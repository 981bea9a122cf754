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
  /** A sealed row's key ids (a hit needs them alive) and, in a grouped box, its members as written (a hit needs them unchanged). */
  readonly sealed?: { readonly keys: readonly number[]; readonly members: ReadonlyMap<number, MemberRow> };
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

/** A member of a sealed row's group as the memo compares it. */
export type MemberRow = Pick<MemoRow, 'type' | 'data' | 'metadata'>;

const ids = (value: unknown): value is number[] => Array.isArray(value) && value.every((k) => Number.isSafeInteger(k) && k > 0);

/**
 * The key ids and group positions of the sealed envelope the appender writes as the row's last
 * member; null when the row does not have that shape (it is then not kept).
 */
function envelopeOf(data: string): { k: number[]; p?: number[] } | null {
  const head = `"${envelopeField}":`;
  const at = data.lastIndexOf(head);
  if (at < 0 || !data.endsWith('}}')) return null;
  try {
    const { k, p } = JSON.parse(data.slice(at + head.length, -1)) as { k?: unknown; p?: unknown };
    if (!ids(k) || (p !== undefined && !ids(p))) return null;
    return p === undefined ? { k } : { k, p };
  } catch {
    return null;
  }
}

const sameMember = (a: MemberRow | undefined, b: MemberRow): boolean =>
  a !== undefined && a.data === b.data && a.metadata === b.metadata && a.type === b.type;

/**
 * Decoded events by position, so the readers of one page (the projection runner and each vector
 * store read the log on their own) parse and validate a tick's big batches once, and the appender
 * can hand over the events it just validated and wrote (`rememberWritten`), so the first readers
 * do not parse or open them at all. A clear row's decoding is a function of the row alone. A sealed
 * row's also depends on its keys and, in a grouped box (ADR 19), on the other members' rows: it is
 * kept only as written (never as decoded: that may be its erased reading), only when `alive` is
 * given, and a hit needs `alive` of its key ids (the decoder's own key lookup) and every member's
 * row as written; `dropSealed` forgets every sealed one (an erasure calls it). A hit needs the row
 * to be byte for byte the one decoded (or written), so a row changed on disk is decoded (and
 * refused) again. Entries are frozen, as readers share them; the oldest go first
 * once the kept rows' data passes `maxBytes`.
 */
export function createDecodeMemo(maxBytes = 16 * 1024 * 1024, alive?: (keyIds: readonly number[]) => boolean) {
  const entries = new Map<number, Entry>();
  let bytes = 0;
  const drop = (position: number): void => {
    const entry = entries.get(position);
    if (!entry) return;
    entries.delete(position);
    bytes -= entry.row.data.length;
  };
  const isSealed = (row: MemoRow): boolean => row.data.includes(`"${envelopeField}"`);
  const kept = (row: MemoRow): boolean => !isSealed(row) && row.data.length <= maxBytes;
  const keep = (row: MemoRow, event: RecordedEvent, sealed?: Entry['sealed']): void => {
    drop(row.globalPosition);
    entries.set(row.globalPosition, sealed ? { row, event, sealed } : { row, event });
    bytes += row.data.length;
    for (const position of entries.keys()) {
      if (bytes <= maxBytes) break;
      drop(position);
    }
  };
  const opensAsWritten = (sealed: Entry['sealed'], rowNow?: (position: number) => MemberRow | undefined): boolean => {
    if (sealed === undefined) return true;
    if (alive?.(sealed.keys) !== true) return false;
    for (const [at, member] of sealed.members) if (!rowNow || !sameMember(rowNow(at), member)) return false;
    return true;
  };
  return {
    /** `rowNow` reads a grouped box's other members as stored now. */
    decode(row: MemoRow, decodeRow: () => RecordedEvent, rowNow?: (position: number) => MemberRow | undefined): RecordedEvent {
      const hit = entries.get(row.globalPosition);
      if (hit && sameRow(hit.row, row) && opensAsWritten(hit.sealed, rowNow)) return hit.event;
      const event = decodeRow();
      if (kept(row)) keep(row, deepFreeze(event));
      return event;
    },
    /**
     * After an append commits: keeps each event just written as the decoding of its row (a clear
     * row is its JSON; a sealed one opens to it while its keys live and its group's rows, all of
     * the same append, stay as written), unless JSON would not give it back exactly. Frozen in
     * place: the appender hands over events nobody else holds.
     */
    rememberWritten(written: readonly { readonly row: MemoRow; readonly event: RecordedEvent }[]): void {
      const first = written[0]?.row.globalPosition ?? 0;
      const rowWritten = (at: number): MemoRow | undefined => {
        const row = written[at - first]?.row;
        return row?.globalPosition === at ? row : undefined;
      };
      for (const { row, event } of written) {
        if (row.data.length > maxBytes) continue;
        let sealed: Entry['sealed'];
        if (isSealed(row)) {
          const envelope = alive ? envelopeOf(row.data) : null;
          const members = new Map((envelope?.p ?? []).map((at) => [at, rowWritten(at)] as const));
          if (!envelope || [...members.values()].some((m) => m === undefined)) continue;
          sealed = { keys: envelope.k, members: members as Map<number, MemberRow> };
        }
        if (freezeJsonExact(event)) keep(row, event, sealed);
      }
    },
    /** Forgets every sealed row kept: after an erasure no plaintext of it stays here. */
    dropSealed(): void {
      for (const [position, entry] of entries) if (entry.sealed) drop(position);
    },
  };
}
