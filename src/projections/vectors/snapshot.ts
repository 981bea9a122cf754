import { createHash } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

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

export interface Snapshot {
  readonly header: SnapshotHeader;
  readonly index: Buffer;
  /** Read from a format 1 or 2 file: the store rewrites it in format 3 at its next close. */
  readonly legacy?: true;
}

/** A snapshot opened by its (checked) header; its index bytes are read and checked on demand. */
export interface OpenedSnapshot {
  readonly header: SnapshotHeader;
  readonly legacy?: true;
  /** The FAISS bytes, checked against their digest; throws SnapshotDamagedError. Closes the file. */
  index(): Buffer;
  /** Closes the file without reading the index. */
  close(): void;
}

/** A snapshot file that cannot be trusted: truncated, changed, or not a snapshot at all. */
export class SnapshotDamagedError extends Error {
  override readonly name = 'SnapshotDamagedError';
}

/*
 * Format 3 (ADR 24, ADR 26): magic, header length (u32 LE), index length (u64 LE), sha256 of the
 * magic, both lengths and the header, sha256 of the index; then the JSON header and the FAISS
 * bytes. The lengths tell truncation from a changed byte; the header's own digest lets an open
 * trust the header (counts, checkpoint) without reading the index, whose digest is checked when
 * its bytes are first needed. Format 2 had one digest over everything: it is read whole, as before.
 */
const magic = Buffer.from('LMSNAP3\n', 'latin1');
const magic2 = Buffer.from('LMSNAP2\n', 'latin1');
const prefixBytes = magic.length + 4 + 8;
const digestBytes = 32;

// The id lists hold one entry per vector: a plain loop checks them (zod's per-element parse cost
// ~50 ms per 10k ids, on every CLI start).
const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((x) => typeof x === 'string');
const pairs = (value: unknown): value is [string, string][] =>
  Array.isArray(value) && value.every((x) => Array.isArray(x) && x.length === 2 && typeof x[0] === 'string' && typeof x[1] === 'string');
const headerSchema = z.object({
  generation: z.number().int().positive(),
  checkpoint: z.string().regex(/^\d+$/),
  fingerprint: z.string(),
  dimension: z.number().int().min(0),
  ids: z.custom<string[]>(strings, 'ids must be a list of strings'),
  pending: z.custom<[string, string][]>(pairs, 'pending must be a list of [id, key] pairs'),
  owners: z.custom<[string, string][]>(pairs, 'owners must be a list of [id, owner] pairs').optional(),
});

const digestOf = (parts: readonly Buffer[]): Buffer => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

const prefixOf = (headerLength: number, indexLength: number, which = magic): Buffer => {
  const prefix = Buffer.alloc(prefixBytes);
  which.copy(prefix);
  prefix.writeUInt32LE(headerLength, which.length);
  prefix.writeBigUInt64LE(BigInt(indexLength), which.length + 4);
  return prefix;
};

/** Header and FAISS bytes in one file, written to a temporary name, synced, then renamed: all or nothing. */
export function writeSnapshot(path: string, snapshot: Snapshot): void {
  const header = Buffer.from(JSON.stringify(snapshot.header), 'utf8');
  const prefix = prefixOf(header.length, snapshot.index.length);
  const parts = [prefix, digestOf([prefix, header]), digestOf([snapshot.index]), header, snapshot.index];
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

const parseHeader = (bytes: Buffer, generation: number | undefined): SnapshotHeader => {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new SnapshotDamagedError(`header is not JSON: ${(error as Error).message}`);
  }
  const parsed = headerSchema.safeParse(json);
  if (!parsed.success) throw new SnapshotDamagedError(`header is not a snapshot header: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  if (generation !== undefined && parsed.data.generation !== generation) {
    throw new SnapshotDamagedError(`holds generation ${parsed.data.generation}, not ${generation}`);
  }
  return parsed.data;
};

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

/** The lengths a checksummed file's prefix announces, checked against its size (truncation). */
function lengthsOf(prefix: Buffer, size: number, digests: number): { header: number; index: number } {
  if (size < prefixBytes + digests * digestBytes) throw new SnapshotDamagedError(`truncated: ${size} bytes`);
  const header = prefix.readUInt32LE(magic.length);
  const index = prefix.readBigUInt64LE(magic.length + 4);
  const expected = BigInt(prefixBytes + digests * digestBytes + header) + index;
  if (BigInt(size) !== expected) throw new SnapshotDamagedError(`${size} bytes, its lengths say ${expected}: truncated or extended`);
  return { header, index: Number(index) };
}

/** Format 3: the header checked and parsed now, the index read and checked by `index()`. */
function openChecked(fd: number, size: number, generation: number | undefined): OpenedSnapshot {
  const lengths = lengthsOf(readAt(fd, 0, Math.min(size, prefixBytes)), size, 2);
  const digests = readAt(fd, prefixBytes, 2 * digestBytes);
  const start = prefixBytes + 2 * digestBytes;
  const headerBytes = readAt(fd, start, lengths.header);
  if (!digestOf([prefixOf(lengths.header, lengths.index), headerBytes]).equals(digests.subarray(0, digestBytes))) {
    throw new SnapshotDamagedError('checksum mismatch: a byte changed (header)');
  }
  const header = parseHeader(headerBytes, generation);
  let open = true;
  const close = (): void => {
    if (open) closeSync(fd);
    open = false;
  };
  return {
    header,
    index: () => {
      if (!open) throw new Error('snapshot closed before its index was read');
      try {
        const index = readAt(fd, start + lengths.header, lengths.index);
        if (!digestOf([index]).equals(digests.subarray(digestBytes))) throw new SnapshotDamagedError('checksum mismatch: a byte changed (index)');
        return index;
      } catch (error) {
        throw error instanceof SnapshotDamagedError ? error : new SnapshotDamagedError(`unreadable: ${(error as Error).message}`);
      } finally {
        close();
      }
    },
    close,
  };
}

/** Format 2: one digest over the magic, both lengths, the header and the index; read whole. */
function readFormat2(bytes: Buffer, generation: number | undefined): Snapshot {
  const lengths = lengthsOf(bytes.subarray(0, prefixBytes), bytes.length, 1);
  const start = prefixBytes + digestBytes;
  const header = bytes.subarray(start, start + lengths.header);
  const index = bytes.subarray(start + lengths.header);
  const digest = digestOf([bytes.subarray(0, prefixBytes), header, index]);
  if (!digest.equals(bytes.subarray(prefixBytes, start))) throw new SnapshotDamagedError('checksum mismatch: a byte changed');
  return { header: parseHeader(header, generation), index, legacy: true };
}

/** Format 1 (before checksums): a u32 header length and a JSON header with `format: 1`, then the FAISS bytes. */
function readLegacy(bytes: Buffer, generation: number | undefined): Snapshot {
  if (bytes.length < 4) throw new SnapshotDamagedError(`truncated: ${bytes.length} bytes`);
  const length = bytes.readUInt32LE(0);
  if (4 + length > bytes.length) {
    throw new SnapshotDamagedError(`truncated or not a snapshot: its first bytes announce a ${length}-byte header, the file has ${bytes.length} bytes`);
  }
  const raw = bytes.subarray(4, 4 + length);
  const format = (() => {
    try {
      return (JSON.parse(raw.toString('utf8')) as { format?: unknown }).format;
    } catch {
      return undefined;
    }
  })();
  if (format !== 1) throw new SnapshotDamagedError('neither a checksummed snapshot nor a format 1 one');
  return { header: parseHeader(raw, generation), index: bytes.subarray(4 + length), legacy: true };
}

/** A snapshot whose index bytes have been read already. */
const whole = (snapshot: Snapshot): OpenedSnapshot => ({ ...snapshot, index: () => snapshot.index, close: () => undefined });

/**
 * The snapshot at `path` opened by its header, or undefined when there is none: `index()` reads
 * the FAISS bytes once and checks them (format 3); older formats are read and checked whole now.
 * Throws SnapshotDamagedError when the file is unreadable, truncated, changed, or of another
 * generation than the one asked for. The file stays open until `index()` or `close()`, so a
 * snapshot another process renames into its place meanwhile is not mixed with this one.
 */
export function openSnapshot(path: string, generation?: number): OpenedSnapshot | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SnapshotDamagedError(`unreadable: ${(error as Error).message}`);
  }
  let opened: OpenedSnapshot | undefined;
  try {
    const size = fstatSync(fd).size;
    const first = size >= magic.length ? readAt(fd, 0, magic.length) : Buffer.alloc(0);
    if (first.equals(magic)) return (opened = openChecked(fd, size, generation));
    const bytes = readAt(fd, 0, size);
    return whole(first.equals(magic2) ? readFormat2(bytes, generation) : readLegacy(bytes, generation));
  } catch (error) {
    throw error instanceof SnapshotDamagedError ? error : new SnapshotDamagedError(`unreadable: ${(error as Error).message}`);
  } finally {
    if (!opened) closeSync(fd);
  }
}

/** The whole snapshot at `path`, every byte checked, or undefined when there is none (see `openSnapshot`). */
export function readSnapshot(path: string, generation?: number): Snapshot | undefined {
  const opened = openSnapshot(path, generation);
  if (!opened) return undefined;
  const { header, legacy } = opened;
  return { header, index: opened.index(), ...(legacy ? { legacy } : {}) };
}

export function removeSnapshot(path: string): void {
  rmSync(path, { force: true });
  rmSync(`${path}.tmp`, { force: true });
}
