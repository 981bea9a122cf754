import type { KeyObject } from 'node:crypto';
import { openGroup } from './cipher.js';

/**
 * Grouped boxes (ADR 19): the events of one append sealed under the same key ids share one
 * AES-GCM operation, since node:crypto's cipher object costs far more per call than the AES.
 * At most this many share one box, so opening one event reads at most this many rows.
 */
export const groupLimit = 16;

export const envelopeField = '$sealed';

/** What binds one member of a box to its event: type, event id, key ids and sealed paths (comma-joined), its slice's byte length. */
export interface GroupMember {
  readonly type: string;
  readonly eventId: string;
  readonly keys: string;
  readonly paths: string;
  readonly length: number;
}

/** The associated data of one event's own box: type, event id, key ids and paths, each comma-joined. */
export const aadText = (type: string, eventId: string, keys: string, paths: string): string => `${type}\n${eventId}\n${keys}\n${paths}`;

/** The associated data of a single event's box (the envelope without `p`). */
export const aadOf = (type: string, eventId: string, envelope: { readonly k: readonly number[]; readonly f: readonly string[] }): string =>
  aadText(type, eventId, envelope.k.join(','), envelope.f.join(','));

/**
 * The associated data of a grouped box: its member positions, then every member's own associated
 * data (length-prefixed) and slice length, in order. Moving bytes from one slice to another,
 * reordering, dropping or swapping in a member all fail authentication.
 */
export function groupAad(members: readonly GroupMember[], positions: string): string {
  let aad = `livingmemory/group/v1\n${positions}\n`;
  for (const m of members) {
    const own = aadText(m.type, m.eventId, m.keys, m.paths);
    aad += `${own.length}:${own}\n${m.length}\n`;
  }
  return aad;
}

/** A stored row as the opener needs it. */
export interface GroupRow {
  readonly globalPosition: number;
  readonly type: string;
  readonly data: string;
  readonly metadata: string;
}

interface StoredEnvelope {
  readonly k?: unknown;
  readonly f?: unknown;
  readonly iv?: unknown;
  readonly ct?: unknown;
  readonly tag?: unknown;
  readonly p?: unknown;
}

const sameList = (a: unknown, b: unknown): boolean =>
  Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Opens grouped boxes for one read: rows at hand (the page) are used first, the missing members
 * are fetched by position; each box is opened once, its members' values kept for their turn.
 */
export function createGroupOpener(fetch: (positions: readonly number[]) => readonly GroupRow[]) {
  const rows = new Map<number, GroupRow>();
  const opened = new Map<number, unknown[]>();
  // Each row's JSON is parsed once per read, whether it is decoded, a member opened, or both.
  const parsedRows = new Map<number, { data: Record<string, unknown>; metadata: Record<string, unknown> }>();
  const parsed = (position: number, row: { readonly data: string; readonly metadata: string }) => {
    let found = parsedRows.get(position);
    if (!found) {
      found = { data: JSON.parse(row.data) as Record<string, unknown>, metadata: JSON.parse(row.metadata) as Record<string, unknown> };
      parsedRows.set(position, found);
    }
    return found;
  };
  const envelopeOf = (row: GroupRow): StoredEnvelope => (parsed(row.globalPosition, row).data[envelopeField] ?? {}) as StoredEnvelope;
  return {
    add(page: readonly GroupRow[]): void {
      for (const row of page) rows.set(row.globalPosition, row);
    },
    /** The stored row at a position, fetched when it is not at hand. */
    rowAt(position: number): GroupRow | undefined {
      if (!rows.has(position)) for (const row of fetch([position])) rows.set(row.globalPosition, row);
      return rows.get(position);
    },
    /** The data and metadata of the row at a position, parsed once per read; the caller must not change them. */
    parsed,
    /** The sealed values of the event at `position`, or throws (malformed group, or SealIntegrityError). */
    values(position: number, dataKey: KeyObject): unknown[] {
      const done = opened.get(position);
      if (done) {
        opened.delete(position);
        return done;
      }
      const own = rows.get(position);
      const p = own ? envelopeOf(own).p : undefined;
      if (!Array.isArray(p) || p.length < 2 || p.length > groupLimit || !p.every(Number.isSafeInteger) || !p.includes(position)) {
        throw new Error(`malformed sealed group at position ${position}`);
      }
      const positions = p as number[];
      const missing = positions.filter((at) => !rows.has(at));
      if (missing.length > 0) for (const row of fetch(missing)) rows.set(row.globalPosition, row);
      const first = own ? envelopeOf(own) : {};
      const members = positions.map((at) => {
        const row = rows.get(at);
        if (!row) throw new Error(`sealed group at position ${position} misses its member at position ${at}`);
        const envelope = envelopeOf(row);
        const { eventId } = parsed(at, row).metadata;
        const fine =
          envelope.iv === first.iv && envelope.tag === first.tag && sameList(envelope.k, first.k) && sameList(envelope.p, positions) &&
          typeof envelope.ct === 'string' && Array.isArray(envelope.f);
        if (!fine) throw new Error(`sealed group at position ${position} has a mismatched member at position ${at}`);
        const ct = Buffer.from(envelope.ct as string, 'base64');
        const member: GroupMember = {
          type: row.type, eventId: String(eventId), keys: (envelope.k as number[]).join(','), paths: (envelope.f as string[]).join(','), length: ct.length,
        };
        return { member, ct };
      });
      const aad = groupAad(members.map((m) => m.member), positions.join(','));
      const plain = openGroup(dataKey, String(first.iv), String(first.tag), members.map((m) => m.ct), aad);
      positions.forEach((at, i) => opened.set(at, JSON.parse((plain[i] as Buffer).toString('utf8')) as unknown[]));
      return this.values(position, dataKey);
    },
  };
}

export type GroupOpener = ReturnType<typeof createGroupOpener>;
