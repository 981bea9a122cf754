import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';

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
}

/** Header and FAISS bytes in one file, written to a temporary name, synced, then renamed: all or nothing. */
export function writeSnapshot(path: string, snapshot: Snapshot): void {
  const header = Buffer.from(JSON.stringify({ format: 1, ...snapshot.header }), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    for (const part of [length, header, snapshot.index]) writeSync(fd, part);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export function readSnapshot(path: string): Snapshot | undefined {
  if (!existsSync(path)) return undefined;
  const bytes = readFileSync(path);
  const length = bytes.readUInt32LE(0);
  const header = JSON.parse(bytes.subarray(4, 4 + length).toString('utf8')) as SnapshotHeader & { format: number };
  if (header.format !== 1) throw new Error(`vector snapshot ${path} has unknown format ${header.format}`);
  return { header, index: Buffer.from(bytes.subarray(4 + length)) };
}

export function removeSnapshot(path: string): void {
  rmSync(path, { force: true });
  rmSync(`${path}.tmp`, { force: true });
}
