import { existsSync, lstatSync, readlinkSync, statSync, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { ValidationError } from '../../events/errors.js';

/** Where a store lives: nothing an export, compliance export or backup writes may land there. */
export interface StoreLocation {
  readonly dataDir: string;
  /** The store's own files (the .db, its -wal and -shm, snapshots), wherever they are. */
  readonly files: readonly string[];
}

/** Which flag named the target (for the error) and whether an existing file may be replaced. */
export interface TargetRequest {
  readonly flag: string;
  readonly force?: boolean;
}

const maxLinks = 40;

const lstatOf = (path: string): Stats | undefined => {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
};

/**
 * The path a write would reach: every symlink followed, component by component, including a
 * dangling one and the parents of a file that does not exist yet. `..` applies to the real
 * directory reached so far, as the kernel does, not to the text.
 */
export function realTarget(path: string, flag = 'out', hops = 0): string {
  const parts = (isAbsolute(path) ? path : join(process.cwd(), path)).split(sep).filter((p) => p.length > 0);
  let current: string = sep;
  for (const part of parts) {
    if (part === '.') continue;
    if (part === '..') {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    if (lstatOf(next)?.isSymbolicLink()) {
      if (hops >= maxLinks) throw new ValidationError(flag, `${path}: too many levels of symbolic links`);
      const link = readlinkSync(next);
      current = realTarget(isAbsolute(link) ? link : join(current, link), flag, hops + 1);
    } else current = next;
  }
  return current;
}

const inside = (dir: string, path: string): boolean => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

const sameFile = (a: Stats | undefined, b: Stats | undefined): boolean => a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;

const statOf = (path: string): Stats | undefined => {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
};

/** Why the real path may not be written, or null: inside the data dir, or one of the store's files (hard links too). */
function storeClash(real: string, store: StoreLocation): string | null {
  const dataDir = realTarget(store.dataDir);
  if (inside(dataDir, real)) return `resolves to ${real}, inside the data dir ${dataDir}: outputs never go into the store`;
  const target = statOf(real);
  for (const file of store.files) {
    const realFile = realTarget(file);
    if (realFile === real || sameFile(target, statOf(realFile))) return `resolves to ${real}, the store file ${realFile}`;
  }
  return null;
}

/**
 * Checks a file target before anything is written and returns its real path: not in the data
 * dir, not a store file, not a directory, and not an existing file unless `force`.
 */
export function checkOutputFile(target: string, store: StoreLocation, request: TargetRequest): string {
  if (target.length === 0) throw new ValidationError(request.flag, 'must not be empty');
  const real = realTarget(target, request.flag);
  const clash = storeClash(real, store);
  if (clash) throw new ValidationError(request.flag, `${target} ${clash}`);
  const found = statOf(real);
  if (found?.isDirectory()) throw new ValidationError(request.flag, `${target} is a directory`);
  if (found && !request.force) throw new ValidationError(request.flag, `${target} exists; give --force to replace it`);
  const parent = statOf(dirname(real));
  if (!parent?.isDirectory()) throw new ValidationError(request.flag, `${dirname(real)} is not a directory`);
  return real;
}

/**
 * Checks a directory target (a compliance export): not in the data dir, and, when it exists, a
 * directory none of whose `names` exist unless `force`. Returns its real path; it is not created here.
 */
export function checkOutputDir(target: string, names: readonly string[], store: StoreLocation, request: TargetRequest): string {
  if (target.length === 0) throw new ValidationError(request.flag, 'must not be empty');
  const real = realTarget(target, request.flag);
  const clash = storeClash(real, store);
  if (clash) throw new ValidationError(request.flag, `${target} ${clash}`);
  const found = statOf(real);
  if (found && !found.isDirectory()) throw new ValidationError(request.flag, `${target} is not a directory`);
  const present = names.filter((name) => existsSync(join(real, name)));
  if (present.length > 0 && !request.force) {
    throw new ValidationError(request.flag, `${target} already holds ${present.join(', ')}; give --force to replace them`);
  }
  for (const name of names) {
    const clashOf = storeClash(realTarget(join(real, name), request.flag), store);
    if (clashOf) throw new ValidationError(request.flag, `${join(target, name)} ${clashOf}`);
  }
  return real;
}
