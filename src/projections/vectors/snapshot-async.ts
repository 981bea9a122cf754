import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsPromises as files } from '../../events/lazy.js';
import { splitHeader, type SnapshotHeader, type SnapshotLists } from './snapshot-header.js';
import { tailFrom, type Snapshot } from './snapshot-write.js';
import { turn } from '../turns.js';

// About 5 ms of hashing a slice on this machine: the event loop turns between slices.
const sliceBytes = 2 * 1024 * 1024;

/** A snapshot whose FAISS bytes faiss wrote to a file of their own (`FlatIndex.writeTo`); moved into the snapshot, then removed. */
export interface FileSnapshot {
  readonly header: SnapshotHeader;
  readonly indexFile: string;
  /** Settles when faiss has written `indexFile`. */
  readonly written?: Promise<void>;
}

// Items of a list encoded at once: a few ms; a snapshot of 400k graph entries made its lists' JSON in one step of 100-150 ms.
const listSlice = 20_000;

/** The lists' JSON, the bytes JSON.stringify makes of them, a slice of items at a time with a turn between. */
async function listsJson(lists: SnapshotLists): Promise<Buffer[]> {
  const parts: Buffer[] = [];
  let before = '{';
  for (const [key, list] of Object.entries(lists) as [string, readonly unknown[] | undefined][]) {
    if (list === undefined) continue;
    parts.push(Buffer.from(`${before}${JSON.stringify(key)}:[`, 'utf8'));
    before = ',';
    for (let at = 0; at < list.length; at += listSlice) {
      parts.push(Buffer.from(`${at > 0 ? ',' : ''}${JSON.stringify(list.slice(at, at + listSlice)).slice(1, -1)}`, 'utf8'));
      await turn();
    }
    parts.push(Buffer.from(']', 'utf8'));
  }
  parts.push(Buffer.from(before === '{' ? '{}' : '}', 'utf8'));
  return parts;
}

/** `tailOf` with the lists encoded in slices: the same bytes. */
export async function tailInSlices(header: SnapshotHeader, indexLength: number, indexDigest: Buffer): Promise<Buffer[]> {
  const { summary, lists } = splitHeader(header);
  return tailFrom(Buffer.from(JSON.stringify(summary), 'utf8'), await listsJson(lists), indexLength, indexDigest);
}

async function writeAll(file: FileHandle, bytes: Buffer, position: number): Promise<void> {
  for (let done = 0; done < bytes.length; ) done += (await file.write(bytes, done, bytes.length - done, position + done)).bytesWritten;
}

/** The index hashed a slice at a time with a turn between, then the parts written in order (format 4: the index first). */
async function writeFromMemory(file: FileHandle, snapshot: Snapshot): Promise<void> {
  const hash = createHash('sha256');
  for (let at = 0; at < snapshot.index.length; at += sliceBytes) {
    hash.update(snapshot.index.subarray(at, at + sliceBytes));
    await turn();
  }
  // writeFile writes all of each part, from where the last one ended.
  for (const part of [snapshot.index, ...(await tailInSlices(snapshot.header, snapshot.index.length, hash.digest()))]) await file.writeFile(part);
}

/** The faiss file copied and hashed a slice at a time, then what follows the index. */
async function writeFromFile(file: FileHandle, snapshot: FileSnapshot): Promise<void> {
  await snapshot.written;
  const source = await files().open(snapshot.indexFile, 'r');
  try {
    const length = (await source.stat()).size;
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(Math.min(sliceBytes, Math.max(1, length)));
    for (let at = 0; at < length; ) {
      const { bytesRead } = await source.read(chunk, 0, Math.min(chunk.length, length - at), at);
      if (bytesRead === 0) throw new Error(`${snapshot.indexFile} ended at ${at} of its ${length} bytes`);
      hash.update(chunk.subarray(0, bytesRead));
      await writeAll(file, chunk.subarray(0, bytesRead), at);
      at += bytesRead;
    }
    await writeAll(file, Buffer.concat(await tailInSlices(snapshot.header, length, hash.digest())), length);
  } finally {
    await source.close();
  }
}

/**
 * writeSnapshot without stopping the event loop: the index is hashed a slice at a time with a turn
 * between, the writes, syncs and rename run on libuv's threads. Same bytes, same all-or-nothing.
 */
export async function writeSnapshotAsync(path: string, snapshot: Snapshot | FileSnapshot): Promise<void> {
  const tmp = `${path}.tmp`;
  try {
    const file = await files().open(tmp, 'w');
    try {
      await ('index' in snapshot ? writeFromMemory(file, snapshot) : writeFromFile(file, snapshot));
      await file.sync();
    } finally {
      await file.close();
    }
  } finally {
    if ('indexFile' in snapshot) {
      // Never removed while faiss may still write it; its failure was reported by the read above, or the step before it failed.
      await snapshot.written?.catch(() => undefined);
      await files().rm(snapshot.indexFile, { force: true });
    }
  }
  await files().rename(tmp, path);
  const dir = await files().open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
