import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ValidationError } from '../../events/errors.js';

const kindOf = (path: string): 'file' | 'dir' | 'other' | 'none' => {
  try {
    const s = statSync(path);
    return s.isDirectory() ? 'dir' : s.isFile() ? 'file' : 'other';
  } catch {
    return 'none';
  }
};

/**
 * Where a command writes (`export --out`, `backup`, `compliance-export --out`): a file target must
 * not be a directory, a directory target not a file, and its parent must be an existing directory,
 * so a mistyped path is bad input (exit 2) rather than an I/O failure half-way through.
 */
export function checkOutputTarget(field: string, path: string, want: 'file' | 'dir'): void {
  const found = kindOf(path);
  if (want === 'file' && found === 'dir') throw new ValidationError(field, `${path} is a directory; give a file name`);
  if (want === 'dir' && (found === 'file' || found === 'other')) throw new ValidationError(field, `${path} exists and is not a directory`);
  if (want === 'file' && found === 'other') throw new ValidationError(field, `${path} is not a regular file`);
  const parent = dirname(resolve(path));
  if (found === 'none' && kindOf(parent) !== 'dir') throw new ValidationError(field, `the directory ${parent} does not exist`);
}
