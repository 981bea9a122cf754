import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationError } from '../../events/errors.js';

const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | null)?.code;

/**
 * The data-dir rule (ADR 26): a missing directory is almost always a mistyped path, so only the
 * commands that write (`start`, `add`, `import`) may create it; the others refuse it instead of
 * opening an empty store. A path that is not a directory is refused by every command.
 */
export function checkDataDir(dir: string, databaseFile: string, creates: boolean): void {
  try {
    if (!statSync(dir).isDirectory()) throw new ValidationError('data-dir', `${dir} is not a directory`);
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    if (code(error) === 'ENOTDIR') throw new ValidationError('data-dir', `${dir}: a part of the path is not a directory`);
    if (code(error) !== 'ENOENT') throw new ValidationError('data-dir', `${dir} cannot be read (${code(error) ?? String(error)})`);
    if (creates) return;
    throw new ValidationError('data-dir', `${dir} does not exist (start, add and import create a store; check the path)`);
  }
  try {
    if (!statSync(join(dir, databaseFile)).isFile()) throw new ValidationError('databaseFile', `${join(dir, databaseFile)} is not a file`);
  } catch (error) {
    if (error instanceof ValidationError) throw error;
  }
}
