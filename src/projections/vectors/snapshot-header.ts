/** What a snapshot's header says of its index, with the id lists. */
export interface SnapshotHeader {
  readonly generation: number;
  readonly checkpoint: string;
  readonly fingerprint: string;
  readonly dimension: number;
  readonly ids: readonly string[];
  /** Items whose embedding was missing when applied, with the cache key to retry. */
  readonly pending: readonly (readonly [string, string])[];
  /** Items owned by another id (graph entries by their memory); absent when every item owns itself. */
  readonly owners?: readonly (readonly [string, string])[];
}

/** The id lists of a header: one entry per vector, parsed only when a command needs them. */
export type SnapshotLists = Pick<SnapshotHeader, 'ids' | 'pending' | 'owners'>;

/** A header without its lists, with their lengths: all an open needs to report and catch up (ADR 26). */
export interface SnapshotSummary extends Omit<SnapshotHeader, keyof SnapshotLists> {
  readonly size: number;
  readonly pendingCount: number;
}

/** A snapshot file that cannot be trusted: truncated, changed, or not a snapshot at all. */
export class SnapshotDamagedError extends Error {
  override readonly name = 'SnapshotDamagedError';
}

// Plain checks, not zod: they run at every open, and the lists hold one entry per vector.
const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((x) => typeof x === 'string');
const pairs = (value: unknown): value is [string, string][] =>
  Array.isArray(value) && value.every((x) => Array.isArray(x) && x.length === 2 && typeof x[0] === 'string' && typeof x[1] === 'string');
const integer = (value: unknown, min: number): value is number => typeof value === 'number' && Number.isInteger(value) && value >= min;

function json(bytes: Buffer, what: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new SnapshotDamagedError(`${what} is not JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new SnapshotDamagedError(`${what} is not an object`);
  return parsed as Record<string, unknown>;
}

const refuse = (problem: string): never => {
  throw new SnapshotDamagedError(`header is not a snapshot header: ${problem}`);
};

function core(h: Record<string, unknown>, generation: number | undefined): Omit<SnapshotSummary, 'size' | 'pendingCount'> {
  if (!integer(h.generation, 1)) refuse('generation must be a positive integer');
  if (typeof h.checkpoint !== 'string' || !/^\d+$/.test(h.checkpoint)) refuse('checkpoint must be a decimal string');
  if (typeof h.fingerprint !== 'string') refuse('fingerprint must be a string');
  if (!integer(h.dimension, 0)) refuse('dimension must be a non-negative integer');
  const checked = { generation: h.generation as number, checkpoint: h.checkpoint as string, fingerprint: h.fingerprint as string, dimension: h.dimension as number };
  if (generation !== undefined && checked.generation !== generation) throw new SnapshotDamagedError(`holds generation ${checked.generation}, not ${generation}`);
  return checked;
}

function lists(h: Record<string, unknown>): SnapshotLists {
  if (!strings(h.ids)) refuse('ids must be a list of strings');
  if (!pairs(h.pending)) refuse('pending must be a list of [id, key] pairs');
  if (h.owners !== undefined && !pairs(h.owners)) refuse('owners must be a list of [id, owner] pairs');
  return { ids: h.ids as string[], pending: h.pending as [string, string][], ...(h.owners === undefined ? {} : { owners: h.owners as [string, string][] }) };
}

/** A whole header (formats 1 and 2, and what `readSnapshot` gives). */
export function parseHeader(bytes: Buffer, generation: number | undefined): SnapshotHeader {
  const h = json(bytes, 'header');
  return { ...core(h, generation), ...lists(h) };
}

/** Format 3's summary: the header without its lists. */
export function parseSummary(bytes: Buffer, generation: number | undefined): SnapshotSummary {
  const h = json(bytes, 'header');
  if (!integer(h.size, 0) || !integer(h.pendingCount, 0)) refuse('size and pendingCount must be counts');
  return { ...core(h, generation), size: h.size as number, pendingCount: h.pendingCount as number };
}

/** Format 3's lists, which must be as long as its summary says. */
export function parseLists(bytes: Buffer, summary: SnapshotSummary): SnapshotLists {
  const parsed = lists(json(bytes, 'id lists'));
  if (parsed.ids.length !== summary.size || parsed.pending.length !== summary.pendingCount) {
    throw new SnapshotDamagedError(`its lists hold ${parsed.ids.length} ids and ${parsed.pending.length} pending, its header says ${summary.size} and ${summary.pendingCount}`);
  }
  return parsed;
}

/** The summary and lists of a whole header, as format 3 writes them. */
export function splitHeader(header: SnapshotHeader): { summary: SnapshotSummary; lists: SnapshotLists } {
  const { ids, pending, owners, ...rest } = header;
  return { summary: { ...rest, size: ids.length, pendingCount: pending.length }, lists: { ids, pending, ...(owners ? { owners } : {}) } };
}
