import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
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
  /** Read from a format 1 file (no checksum): the store rewrites it in format 2 at its next close. */
  readonly legacy?: true;
}

/** A snapshot file that cannot be trusted: truncated, changed, or not a snapshot at all. */
export class SnapshotDamagedError extends Error {
  override readonly name = 'SnapshotDamagedError';
}

/*
 * Format 2 (ADR 24): magic, header length (u32 LE), index length (u64 LE), sha256 of the magic,
 * both lengths, the header and the index; then the JSON header and the FAISS bytes. The lengths
 * tell truncation from a changed byte; the digest covers every byte but its own.
 */
const magic = Buffer.from('LMSNAP2\n', 'latin1');
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

function framing(snapshot: Snapshot): { prefix: Buffer; header: Buffer } {
  const header = Buffer.from(JSON.stringify(snapshot.header), 'utf8');
  const prefix = Buffer.alloc(prefixBytes);
  magic.copy(prefix);
  prefix.writeUInt32LE(header.length, magic.length);
  prefix.writeBigUInt64LE(BigInt(snapshot.index.length), magic.length + 4);
  return { prefix, header };
}

/** Header and FAISS bytes in one file, written to a temporary name, synced, then renamed: all or nothing. */
export function writeSnapshot(path: string, snapshot: Snapshot): void {
  const { prefix, header } = framing(snapshot);
  const digest = digestOf([prefix, header, snapshot.index]);
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    for (const part of [prefix, digest, header, snapshot.index]) writeSync(fd, part);
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
 * writeSnapshot without stopping the event loop: the checksum is taken 4 MiB at a time with a turn
 * between, the writes, syncs and rename run on libuv's threads. Same bytes, same all-or-nothing.
 */
export async function writeSnapshotAsync(path: string, snapshot: Snapshot): Promise<void> {
  const { prefix, header } = framing(snapshot);
  const hash = createHash('sha256').update(prefix).update(header);
  for (let at = 0; at < snapshot.index.length; at += sliceBytes) {
    hash.update(snapshot.index.subarray(at, at + sliceBytes));
    await turn();
  }
  const tmp = `${path}.tmp`;
  const file = await open(tmp, 'w');
  try {
    // writeFile writes all of each part, from where the last one ended.
    for (const part of [prefix, hash.digest(), header, snapshot.index]) await file.writeFile(part);
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

function readChecked(bytes: Buffer, generation: number | undefined): Snapshot {
  if (bytes.length < prefixBytes + digestBytes) throw new SnapshotDamagedError(`truncated: ${bytes.length} bytes`);
  const headerLength = bytes.readUInt32LE(magic.length);
  const indexLength = bytes.readBigUInt64LE(magic.length + 4);
  const expected = BigInt(prefixBytes + digestBytes + headerLength) + indexLength;
  if (BigInt(bytes.length) !== expected) throw new SnapshotDamagedError(`${bytes.length} bytes, its lengths say ${expected}: truncated or extended`);
  const start = prefixBytes + digestBytes;
  const header = bytes.subarray(start, start + headerLength);
  const index = bytes.subarray(start + headerLength);
  const digest = digestOf([bytes.subarray(0, prefixBytes), header, index]);
  if (!digest.equals(bytes.subarray(prefixBytes, start))) throw new SnapshotDamagedError('checksum mismatch: a byte changed');
  return { header: parseHeader(header, generation), index: Buffer.from(index) };
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
  return { header: parseHeader(raw, generation), index: Buffer.from(bytes.subarray(4 + length)), legacy: true };
}

/**
 * The snapshot at `path`, or undefined when there is none. Throws SnapshotDamagedError when the
 * file is unreadable, truncated, changed, or of another generation than the one asked for; an old
 * format 1 file (no checksum) is read as it was written.
 */
export function readSnapshot(path: string, generation?: number): Snapshot | undefined {
  if (!existsSync(path)) return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new SnapshotDamagedError(`unreadable: ${(error as Error).message}`);
  }
  const checked = bytes.length >= magic.length && bytes.subarray(0, magic.length).equals(magic);
  return checked ? readChecked(bytes, generation) : readLegacy(bytes, generation);
}

export function removeSnapshot(path: string): void {
  rmSync(path, { force: true });
  rmSync(`${path}.tmp`, { force: true });
}
