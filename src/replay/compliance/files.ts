import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fsPromises } from '../../events/lazy.js';
import { commitTemporary, temporaryBeside } from '../output/atomic.js';

/** What the manifest says of one written file. */
export interface ExportFile {
  readonly name: string;
  readonly bytes: number;
  readonly sha256: string;
  /** Data records, the CSV header not counted. */
  readonly records: number;
}

/**
 * A file written a page at a time, hashed as it is written, so an export never holds the log in
 * memory. It is written under a temporary name in the same directory and moved into place, synced,
 * only by `close`; `abort` leaves nothing.
 */
export async function openHashedFile(dir: string, name: string, force: boolean) {
  const path = join(dir, name);
  const tmp = temporaryBeside(path);
  const handle: FileHandle = await fsPromises().open(tmp, 'wx');
  const hash = createHash('sha256');
  let bytes = 0;
  let records = 0;
  return {
    async write(chunk: string, count: number): Promise<void> {
      if (chunk.length === 0) return;
      const buffer = Buffer.from(chunk, 'utf8');
      hash.update(buffer);
      bytes += buffer.length;
      records += count;
      await handle.write(buffer);
    },
    async close(): Promise<ExportFile> {
      await handle.close();
      try {
        commitTemporary(tmp, path, { flag: 'out', force });
      } finally {
        rmSync(tmp, { force: true });
      }
      return { name, bytes, sha256: hash.digest('hex'), records };
    },
    async abort(): Promise<void> {
      await handle.close();
      rmSync(tmp, { force: true });
    },
  };
}

export type HashedFile = Awaited<ReturnType<typeof openHashedFile>>;
