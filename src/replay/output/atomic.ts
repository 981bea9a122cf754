import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ValidationError } from '../../events/errors.js';
import type { TargetRequest } from './target.js';

/** A temporary name beside the target, so the final rename stays on one file system. */
export const temporaryBeside = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);

/** fsync of a file or directory by path: a directory's entry (the rename) survives a power loss only once synced. */
export function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Moves a finished temporary file onto its target. Without `force` a hard link refuses a target
 * that appeared meanwhile (rename would silently replace it); file systems without hard links
 * fall back to rename after the check already made.
 */
export function commitTemporary(tmp: string, path: string, request: TargetRequest): void {
  syncPath(tmp);
  if (request.force) renameSync(tmp, path);
  else {
    try {
      linkSync(tmp, path);
      rmSync(tmp, { force: true });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'EEXIST') throw new ValidationError(request.flag, `${path} appeared meanwhile; give --force to replace it`);
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
      renameSync(tmp, path);
    }
  }
  syncPath(dirname(path));
}

/**
 * Writes a file through a temporary one in the target's directory, synced, then moved into
 * place: a reader (or a crash) sees the old file or the whole new one, never half of it.
 */
export async function writeThrough(path: string, write: (tmp: string) => Promise<void> | void, request: TargetRequest): Promise<void> {
  const tmp = temporaryBeside(path);
  try {
    await write(tmp);
    commitTemporary(tmp, path, request);
  } finally {
    rmSync(tmp, { force: true });
  }
}
