import { createHash } from 'node:crypto';
import { closeSync, openSync, ftruncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileDigest } from '../src/engine/backups/files.js';
import { tempDir } from './support/engine.js';

// A backup's size and sha256 were read from the whole file in memory: past 2 GiB (a store of about
// 150k memories) Node refuses, and the backup before a migration failed the open (a 1M-memory run).
let temp: ReturnType<typeof tempDir> | undefined;
afterEach(() => temp?.remove());

describe('a backup file\'s digest', () => {
  it('is the size and sha256 of its bytes', async () => {
    temp = tempDir();
    const path = join(temp.dir, 'small.db');
    const bytes = Buffer.from('SQLite format 3\u0000 and some pages');
    writeFileSync(path, bytes);
    expect(await fileDigest(path)).toEqual({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  });

  it('reads a file over 2 GiB in chunks', async () => {
    temp = tempDir();
    const path = join(temp.dir, 'large.db');
    const size = 2 * 1024 ** 3 + 1024 ** 2;
    // Sparse: no disk space, read back as zeros.
    const fd = openSync(path, 'w');
    ftruncateSync(fd, size);
    closeSync(fd);
    const zeros = Buffer.alloc(1024 ** 2);
    const expected = createHash('sha256');
    for (let done = 0; done < size; done += zeros.length) expected.update(zeros);
    expect(await fileDigest(path)).toEqual({ bytes: size, sha256: expected.digest('hex') });
  }, 60_000);
});
