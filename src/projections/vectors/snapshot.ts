import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { parseLists, parseSummary, SnapshotDamagedError, splitHeader, type SnapshotHeader, type SnapshotLists, type SnapshotSummary } from './snapshot-header.js';
import { readLegacy, type LegacySnapshot } from './snapshot-legacy.js';
import { digestBytes, digestOf, lengthsBytes, magic, trailerBytes, type Snapshot } from './snapshot-write.js';

export { writeSnapshot, type Snapshot } from './snapshot-write.js';

export { SnapshotDamagedError, type SnapshotHeader, type SnapshotLists, type SnapshotSummary } from './snapshot-header.js';

/** The FAISS bytes where faiss can read them itself: the first `length` bytes of the file at `path`. */
export interface IndexFile {
  readonly path: string;
  readonly length: number;
  /** The first bytes (at most 64), checked with the rest: what to check before faiss reads. */
  readonly head: Buffer;
}

/** A snapshot opened by its (checked) summary; its lists and index bytes are read on demand. */
export interface OpenedSnapshot {
  readonly summary: SnapshotSummary;
  readonly legacy?: true;
  /** The id lists, checked with the summary at open, parsed at the first call. */
  lists(): SnapshotLists;
  /** The FAISS bytes, checked against their digest; throws SnapshotDamagedError. Closes the file. */
  index(): Buffer;
  /**
   * Checks the FAISS bytes against their digest (read in slices, not kept), then gives `use` a
   * path to this same open file, which starts with them: faiss reads them with one copy, where
   * `index()` and faiss-node's fromBuffer make four. Closes the file. Absent when the file cannot
   * be named by its descriptor (no /proc) or was read whole.
   */
  readonly viaFile?: <T>(use: (file: IndexFile) => T) => T;
  /** Closes the file without reading the index. */
  close(): void;
}

/** Exactly `length` bytes at `position` of an open file; fewer means the file changed under us. */
function readAt(fd: number, position: number, length: number, into = Buffer.allocUnsafe(length)): Buffer {
  let done = 0;
  while (done < length) {
    const n = readSync(fd, into, done, length - done, position + done);
    if (n === 0) throw new SnapshotDamagedError(`truncated while read: ${position + done} bytes`);
    done += n;
  }
  return into.subarray(0, length);
}

const damaged = (error: unknown): SnapshotDamagedError =>
  error instanceof SnapshotDamagedError ? error : new SnapshotDamagedError(`unreadable: ${(error as Error).message}`);

/** The trailer's lengths, checked against the file's size (truncation), and its two digests. */
function trailerOf(trailer: Buffer, size: number) {
  const lengths = trailer.subarray(0, lengthsBytes);
  const [summary, lists, index] = [lengths.readUInt32LE(magic.length), lengths.readBigUInt64LE(magic.length + 4), lengths.readBigUInt64LE(magic.length + 12)];
  const expected = BigInt(summary) + lists + index + BigInt(trailerBytes);
  if (BigInt(size) !== expected) throw new SnapshotDamagedError(`${size} bytes, its lengths say ${expected}: truncated or extended`);
  const digests = trailer.subarray(lengthsBytes);
  return { lengths, summary, lists: Number(lists), index: Number(index), headDigest: digests.subarray(0, digestBytes), indexDigest: digests.subarray(digestBytes) };
}

/** The FAISS bytes are hashed this many at a time through one buffer: fresh pages cost more than the hashing. */
const checkSlice = 1024 * 1024;
// faiss opens the descriptor's own file (the one opened, even if another was renamed into its place since).
const fdPath = (fd: number): string | undefined => (existsSync(`/proc/self/fd/${fd}`) ? `/proc/self/fd/${fd}` : undefined);

const indexMismatch = (): SnapshotDamagedError => new SnapshotDamagedError('checksum mismatch: a byte changed (index)');

/** Checks the first `length` bytes of the file against `digest`, a slice at a time through one buffer; returns the first 64. */
function checkInSlices(fd: number, length: number, digest: Buffer): Buffer {
  const hash = createHash('sha256');
  const slice = Buffer.allocUnsafe(Math.min(checkSlice, length));
  let first = Buffer.alloc(0);
  for (let at = 0; at < length; at += slice.length) {
    const bytes = readAt(fd, at, Math.min(slice.length, length - at), slice);
    if (at === 0) first = Buffer.from(bytes.subarray(0, 64));
    hash.update(bytes);
  }
  if (!hash.digest().equals(digest)) throw indexMismatch();
  return first;
}

/** Format 4: the summary checked and parsed now, the lists when asked, the index checked by `index()` or `viaFile()`. */
function openChecked(fd: number, size: number, generation: number | undefined): OpenedSnapshot {
  const trailer = trailerOf(readAt(fd, size - trailerBytes, trailerBytes), size);
  const head = readAt(fd, trailer.index, trailer.summary + trailer.lists);
  if (!digestOf([trailer.lengths, head]).equals(trailer.headDigest)) throw new SnapshotDamagedError('checksum mismatch: a byte changed (header)');
  const summary = parseSummary(head.subarray(0, trailer.summary), generation);
  let lists: SnapshotLists | undefined;
  let open = true;
  const close = (): void => {
    if (open) closeSync(fd);
    open = false;
  };
  const unreadIndex = (): void => {
    if (!open) throw new Error('snapshot closed before its index was read');
  };
  const path = fdPath(fd);
  return {
    summary,
    lists: () => (lists ??= parseLists(head.subarray(trailer.summary), summary)),
    index: () => {
      unreadIndex();
      try {
        const index = readAt(fd, 0, trailer.index);
        if (!digestOf([index]).equals(trailer.indexDigest)) throw indexMismatch();
        return index;
      } catch (error) {
        throw damaged(error);
      } finally {
        close();
      }
    },
    ...(path === undefined ? {} : {
      viaFile: <T>(use: (file: IndexFile) => T): T => {
        unreadIndex();
        try {
          let first: Buffer;
          try {
            first = checkInSlices(fd, trailer.index, trailer.indexDigest);
          } catch (error) {
            throw damaged(error);
          }
          return use({ path, length: trailer.index, head: first });
        } finally {
          close();
        }
      },
    }),
    close,
  };
}

/** An older snapshot, read whole. */
function whole({ header, index }: LegacySnapshot): OpenedSnapshot {
  const { summary, lists } = splitHeader(header);
  return { summary, legacy: true, lists: () => lists, index: () => index, close: () => undefined };
}

/** Format 4 by its trailer's magic; a file that starts as a FAISS index without it lost its end. */
function isFormat4(fd: number, size: number): boolean {
  if (size >= trailerBytes && readAt(fd, size - trailerBytes, magic.length).equals(magic)) return true;
  if (size >= 4 && readAt(fd, 0, 4).toString('latin1') === 'IxFI') throw new SnapshotDamagedError(`truncated, or its trailer changed: ${size} bytes`);
  return false;
}

/**
 * The snapshot at `path` opened by its summary, or undefined when there is none (format 4; older
 * formats are read and checked whole now). Throws SnapshotDamagedError when the file is
 * unreadable, truncated, changed, or of another generation than the one asked for. The file stays
 * open until its index is read or `close()`, so a snapshot another process renames into its place
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
    if (isFormat4(fd, size)) return (opened = openChecked(fd, size, generation));
    return whole(readLegacy(readAt(fd, 0, size), generation));
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

/**
 * Deletes a snapshot's files on libuv's threads: deleting a file frees its extents in the calling
 * thread, 300 ms for 1.5 GB on this machine's disk (mounted with online discard), 100 MB a vector
 * index at 100k memories, a GB at 1M, after every rebuild's switch (issue 17's event loop).
 */
export async function removeSnapshot(path: string): Promise<void> {
  await Promise.all([path, `${path}.tmp`, indexFileOf(path)].map((file) => rm(file, { force: true })));
}

/** The file faiss writes a snapshot's index to, while the snapshot is written (snapshot-async.ts). */
export const indexFileOf = (path: string): string => `${path}.faiss.tmp`;
