import { createHash } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseLists, parseSummary, SnapshotDamagedError, splitHeader, type SnapshotHeader, type SnapshotLists, type SnapshotSummary } from './snapshot-header.js';
import { format2Magic, readFormat1, readFormat2, type LegacySnapshot } from './snapshot-legacy.js';

export { SnapshotDamagedError, type SnapshotHeader, type SnapshotLists, type SnapshotSummary } from './snapshot-header.js';

export interface Snapshot {
  readonly header: SnapshotHeader;
  readonly index: Buffer;
  /** Read from a format 1 or 2 file: the store rewrites it in format 3 at its next close. */
  readonly legacy?: true;
}

/** A snapshot opened by its (checked) summary; its lists and index bytes are read on demand. */
export interface OpenedSnapshot {
  readonly summary: SnapshotSummary;
  readonly legacy?: true;
  /** The id lists, checked with the summary at open, parsed at the first call. */
  lists(): SnapshotLists;
  /** The FAISS bytes, checked against their digest; throws SnapshotDamagedError. Closes the file. */
  index(): Buffer;
  /** Closes the file without reading the index. */
  close(): void;
}

/*
 * Format 3 (ADR 24, ADR 26): magic, summary length (u32 LE), lists length (u64 LE), index length
 * (u64 LE); sha256 of the magic, the lengths, the summary and the lists; sha256 of the index; then
 * the summary (the header's JSON without its id lists, with their lengths), the lists (JSON) and
 * the FAISS bytes. The lengths tell truncation from a changed byte. An open checks the first
 * digest and parses the summary alone: counts and checkpoint, all `status` needs. The lists are
 * parsed and the index read and checked by its own digest when a command first needs them.
 */
const magic = Buffer.from('LMSNAP3\n', 'latin1');
export const prefixBytes = magic.length + 4 + 8 + 8;
export const digestBytes = 32;
export const bodyStart = prefixBytes + 2 * digestBytes;

export const digestOf = (parts: readonly Buffer[]): Buffer => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

export const prefixOf = (summary: number, lists: number, index: number): Buffer => {
  const prefix = Buffer.alloc(prefixBytes);
  magic.copy(prefix);
  prefix.writeUInt32LE(summary, magic.length);
  prefix.writeBigUInt64LE(BigInt(lists), magic.length + 4);
  prefix.writeBigUInt64LE(BigInt(index), magic.length + 12);
  return prefix;
};

/** The file's parts in order; the index digest is given, so a caller may hash the index in slices. */
export function partsOf(snapshot: Snapshot, indexDigest: Buffer): Buffer[] {
  const { summary, lists } = splitHeader(snapshot.header);
  const [head, body] = [Buffer.from(JSON.stringify(summary), 'utf8'), Buffer.from(JSON.stringify(lists), 'utf8')];
  const prefix = prefixOf(head.length, body.length, snapshot.index.length);
  return [prefix, digestOf([prefix, head, body]), indexDigest, head, body, snapshot.index];
}

/** Header and FAISS bytes in one file, written to a temporary name, synced, then renamed: all or nothing. */
export function writeSnapshot(path: string, snapshot: Snapshot): void {
  const parts = partsOf(snapshot, digestOf([snapshot.index]));
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    for (const part of parts) writeSync(fd, part);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  // The rename itself is durable only once the folder is synced.
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** The faiss file beside a snapshot, while it is written (snapshot-async.ts). */
export const indexFileOf = (path: string): string => `${path}.faiss.tmp`;

/** Exactly `length` bytes at `position` of an open file; fewer means the file changed under us. */
function readAt(fd: number, position: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, bytes, done, length - done, position + done);
    if (n === 0) throw new SnapshotDamagedError(`truncated while read: ${position + done} bytes`);
    done += n;
  }
  return bytes;
}

/** The lengths the prefix announces, checked against the file's size (truncation). */
function lengthsOf(fd: number, size: number): { summary: number; lists: number; index: number } {
  if (size < bodyStart) throw new SnapshotDamagedError(`truncated: ${size} bytes`);
  const prefix = readAt(fd, 0, prefixBytes);
  const [summary, lists, index] = [prefix.readUInt32LE(magic.length), prefix.readBigUInt64LE(magic.length + 4), prefix.readBigUInt64LE(magic.length + 12)];
  const expected = BigInt(bodyStart + summary) + lists + index;
  if (BigInt(size) !== expected) throw new SnapshotDamagedError(`${size} bytes, its lengths say ${expected}: truncated or extended`);
  return { summary, lists: Number(lists), index: Number(index) };
}

const damaged = (error: unknown): SnapshotDamagedError =>
  error instanceof SnapshotDamagedError ? error : new SnapshotDamagedError(`unreadable: ${(error as Error).message}`);

/** Format 3: the summary checked and parsed now, the lists when asked, the index read and checked by `index()`. */
function openChecked(fd: number, size: number, generation: number | undefined): OpenedSnapshot {
  const lengths = lengthsOf(fd, size);
  const digests = readAt(fd, prefixBytes, 2 * digestBytes);
  const head = readAt(fd, bodyStart, lengths.summary + lengths.lists);
  if (!digestOf([prefixOf(lengths.summary, lengths.lists, lengths.index), head]).equals(digests.subarray(0, digestBytes))) {
    throw new SnapshotDamagedError('checksum mismatch: a byte changed (header)');
  }
  const summary = parseSummary(head.subarray(0, lengths.summary), generation);
  let lists: SnapshotLists | undefined;
  let open = true;
  const close = (): void => {
    if (open) closeSync(fd);
    open = false;
  };
  return {
    summary,
    lists: () => (lists ??= parseLists(head.subarray(lengths.summary), summary)),
    index: () => {
      if (!open) throw new Error('snapshot closed before its index was read');
      try {
        const index = readAt(fd, bodyStart + lengths.summary + lengths.lists, lengths.index);
        if (!digestOf([index]).equals(digests.subarray(digestBytes))) throw new SnapshotDamagedError('checksum mismatch: a byte changed (index)');
        return index;
      } catch (error) {
        throw damaged(error);
      } finally {
        close();
      }
    },
    close,
  };
}

/** An older snapshot, read whole. */
function whole({ header, index }: LegacySnapshot): OpenedSnapshot {
  const { summary, lists } = splitHeader(header);
  return { summary, legacy: true, lists: () => lists, index: () => index, close: () => undefined };
}

/**
 * The snapshot at `path` opened by its summary, or undefined when there is none (format 3; older
 * formats are read and checked whole now). Throws SnapshotDamagedError when the file is
 * unreadable, truncated, changed, or of another generation than the one asked for. The file stays
 * open until `index()` or `close()`, so a snapshot another process renames into its place
 * meanwhile is not mixed with this one.
 */
export function openSnapshot(path: string, generation?: number): OpenedSnapshot | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw damaged(error);
  }
  let opened: OpenedSnapshot | undefined;
  try {
    const size = fstatSync(fd).size;
    const first = size >= magic.length ? readAt(fd, 0, magic.length) : Buffer.alloc(0);
    if (first.equals(magic)) return (opened = openChecked(fd, size, generation));
    const bytes = readAt(fd, 0, size);
    return whole(first.equals(format2Magic) ? readFormat2(bytes, generation) : readFormat1(bytes, generation));
  } catch (error) {
    throw damaged(error);
  } finally {
    if (!opened) closeSync(fd);
  }
}

/** The whole snapshot at `path`, every byte checked, or undefined when there is none (see `openSnapshot`). */
export function readSnapshot(path: string, generation?: number): Snapshot | undefined {
  const opened = openSnapshot(path, generation);
  if (!opened) return undefined;
  const { size: _size, pendingCount: _pending, ...rest } = opened.summary;
  // The index first: reading it closes the file.
  const index = opened.index();
  return { header: { ...rest, ...opened.lists() }, index, ...(opened.legacy ? { legacy: true as const } : {}) };
}

export function removeSnapshot(path: string): void {
  rmSync(path, { force: true });
  rmSync(`${path}.tmp`, { force: true });
  rmSync(indexFileOf(path), { force: true });
}
