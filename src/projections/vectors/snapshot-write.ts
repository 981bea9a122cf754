import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { splitHeader, type SnapshotHeader } from './snapshot-header.js';

export interface Snapshot {
  readonly header: SnapshotHeader;
  readonly index: Buffer;
  /** Read from a file of an older format (1 to 3): the store rewrites it in format 4 at its next close. */
  readonly legacy?: true;
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
export const magic = Buffer.from('LMSNAP4\n', 'latin1');
export const lengthsBytes = magic.length + 4 + 8 + 8;
export const digestBytes = 32;
export const trailerBytes = lengthsBytes + 2 * digestBytes;

export const digestOf = (parts: readonly Buffer[]): Buffer => {
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

/** What follows the FAISS bytes, from the summary's JSON and the lists' JSON (in one part or several). */
export function tailFrom(head: Buffer, body: readonly Buffer[], indexLength: number, indexDigest: Buffer): Buffer[] {
  const lengths = lengthsOf(head.length, body.reduce((n, part) => n + part.length, 0), indexLength);
  return [head, ...body, lengths, digestOf([lengths, head, ...body]), indexDigest];
}

/** What follows the FAISS bytes of an index of `indexLength` bytes: summary, lists and the trailer. */
export function tailOf(header: SnapshotHeader, indexLength: number, indexDigest: Buffer): Buffer[] {
  const { summary, lists } = splitHeader(header);
  return tailFrom(Buffer.from(JSON.stringify(summary), 'utf8'), [Buffer.from(JSON.stringify(lists), 'utf8')], indexLength, indexDigest);
}

/** Header and FAISS bytes in one file, written to a temporary name, synced, then renamed: all or nothing. */
export function writeSnapshot(path: string, snapshot: Snapshot): void {
  const parts = [snapshot.index, ...tailOf(snapshot.header, snapshot.index.length, digestOf([snapshot.index]))];
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
