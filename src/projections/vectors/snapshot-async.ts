import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsPromises as files } from '../../events/lazy.js';
import type { SnapshotHeader } from './snapshot-header.js';
import { tailOf, type Snapshot } from './snapshot-write.js';
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
  for (const part of [snapshot.index, ...tailOf(snapshot.header, snapshot.index.length, hash.digest())]) await file.writeFile(part);
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
    await writeAll(file, Buffer.concat(tailOf(snapshot.header, length, hash.digest())), length);
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
