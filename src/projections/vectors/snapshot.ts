import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseLists, parseSummary, SnapshotDamagedError, splitHeader, type SnapshotHeader, type SnapshotLists, type SnapshotSummary } from './snapshot-header.js';
import { readLegacy, type LegacySnapshot } from './snapshot-legacy.js';

export { SnapshotDamagedError, type SnapshotHeader, type SnapshotLists, type SnapshotSummary } from './snapshot-header.js';

export interface Snapshot {
  readonly header: SnapshotHeader;
  readonly index: Buffer;
  /** Read from a file of an older format (1 to 3): the store rewrites it in format 4 at its next close. */
  readonly legacy?: true;
}

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

/*
 * Format 4 (ADR 24, ADR 26): the FAISS bytes first, so faiss can read the file itself; then the
 * summary (the header's JSON without its id lists, with their lengths) and the lists (JSON); then
 * a trailer: the magic, the summary length (u32 LE), the lists length (u64 LE) and the index
 * length (u64 LE); a sha256 of the magic, the lengths, the summary and the lists; a sha256 of the
 * index. The lengths tell truncation from a changed byte. An open reads the trailer, checks the
 * first digest and parses the summary alone: counts and checkpoint, all `status` needs. The lists
 * are parsed and the index checked by its own digest when a command first needs them.
 */
const magic = Buffer.from('LMSNAP4\n', 'latin1');
const lengthsBytes = magic.length + 4 + 8 + 8;
const digestBytes = 32;
const trailerBytes = lengthsBytes + 2 * digestBytes;

const digestOf = (parts: readonly Buffer[]): Buffer => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

const lengthsOf = (summary: number, lists: number, index: number): Buffer => {
  const lengths = Buffer.alloc(lengthsBytes);
  magic.copy(lengths);
  lengths.writeUInt32LE(summary, magic.length);
  lengths.writeBigUInt64LE(BigInt(lists), magic.length + 4);
  lengths.writeBigUInt64LE(BigInt(index), magic.length + 12);
  return lengths;
};

/** The file's parts in order; the index digest is given, so a caller may hash the index in slices. */
function partsOf(snapshot: Snapshot, indexDigest: Buffer): Buffer[] {
  const { summary, lists } = splitHeader(snapshot.header);
  const [head, body] = [Buffer.from(JSON.stringify(summary), 'utf8'), Buffer.from(JSON.stringify(lists), 'utf8')];
  const lengths = lengthsOf(head.length, body.length, snapshot.index.length);
  return [snapshot.index, head, body, lengths, digestOf([lengths, head, body]), indexDigest];
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

const sliceBytes = 4 * 1024 * 1024;
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * writeSnapshot without stopping the event loop: the index is hashed 4 MiB at a time with a turn
 * between, the writes, syncs and rename run on libuv's threads. Same bytes, same all-or-nothing.
 */
export async function writeSnapshotAsync(path: string, snapshot: Snapshot): Promise<void> {
  const hash = createHash('sha256');
  for (let at = 0; at < snapshot.index.length; at += sliceBytes) {
    hash.update(snapshot.index.subarray(at, at + sliceBytes));
    await turn();
  }
  const parts = partsOf(snapshot, hash.digest());
  const tmp = `${path}.tmp`;
  const file = await open(tmp, 'w');
  try {
    // writeFile writes all of each part, from where the last one ended.
    for (const part of parts) await file.writeFile(part);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(tmp, path);
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
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

export function removeSnapshot(path: string): void {
  rmSync(path, { force: true });
  rmSync(`${path}.tmp`, { force: true });
}
