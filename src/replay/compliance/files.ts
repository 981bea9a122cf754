import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { ValidationError } from '../../events/errors.js';

/** What the manifest says of one written file. */
export interface ExportFile {
  readonly name: string;
  readonly bytes: number;
  readonly sha256: string;
  /** Data records, the CSV header not counted. */
  readonly records: number;
}

/** A file written a page at a time, hashed as it is written, so an export never holds the log in memory. */
export async function openHashedFile(dir: string, name: string) {
  const handle: FileHandle = await open(join(dir, name), 'wx').catch((error: unknown) => {
    if ((error as { code?: string }).code === 'EEXIST') throw new ValidationError('out', `${dir} already holds ${name}`);
    throw error;
  });
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
      return { name, bytes, sha256: hash.digest('hex'), records };
    },
    abort: () => handle.close(),
  };
}

export type HashedFile = Awaited<ReturnType<typeof openHashedFile>>;
