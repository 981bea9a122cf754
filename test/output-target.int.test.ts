import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOutputs } from '../src/engine/outputs.js';
import { writeThrough } from '../src/replay/output/atomic.js';
import { realTarget } from '../src/replay/output/target.js';
import { tempDir } from './support/engine.js';

// A store laid out as the engine lays it out, with every kind of path that reaches it.
let temp: ReturnType<typeof tempDir>;
let root: string;
let outputs: ReturnType<typeof createOutputs>;
beforeEach(() => {
  temp = tempDir();
  root = temp.dir;
  const data = join(root, 'data');
  mkdirSync(join(data, 'vectors'), { recursive: true });
  for (const file of ['livingmemory.db', 'livingmemory.db-wal', 'vectors/vectors-g1.snap']) writeFileSync(join(data, file), 'store');
  mkdirSync(join(root, 'out'));
  outputs = createOutputs({ dataDir: data, databaseFile: 'livingmemory.db' });
});
afterEach(() => temp.remove());

const refused = (target: string) => () => outputs.checkFile(target, { flag: 'out', force: true });

describe('output targets never reach the store', () => {
  it('refuses the store files, the data dir and anything under it, even with --force', () => {
    for (const target of ['data/livingmemory.db', 'data/livingmemory.db-wal', 'data/livingmemory.db-shm', 'data/vectors/vectors-g1.snap', 'data/new.json', 'out/../data/x']) {
      expect(refused(join(root, target)), target).toThrow(/invalid out: .*inside the data dir/);
    }
  });

  it('follows symlinks: to a store file, to the data dir as a parent of a file not yet there, dangling ones, and .. after a link', () => {
    symlinkSync(join(root, 'data/livingmemory.db'), join(root, 'out/db-link'));
    symlinkSync(join(root, 'data'), join(root, 'out/dir-link'));
    symlinkSync(join(root, 'data/vectors/not-yet.snap'), join(root, 'out/dangling'));
    symlinkSync('dir-link/vectors', join(root, 'out/relative-link'));
    mkdirSync(join(root, 'data/vectors/deep'));
    for (const target of ['out/db-link', 'out/dir-link/new.json', 'out/dangling', 'out/relative-link/x', 'out/dir-link/vectors/deep/../../x']) {
      expect(refused(join(root, target)), target).toThrow(/inside the data dir/);
    }
    expect(realTarget(join(root, 'out/dir-link/vectors/deep/..'))).toBe(join(realTarget(root), 'data/vectors'));
  });

  it('refuses a hard link to a store file that lives outside the data dir', () => {
    const outside = createOutputs({ dataDir: join(root, 'data'), databaseFile: '../elsewhere.db' });
    writeFileSync(join(root, 'elsewhere.db'), 'store');
    linkSync(join(root, 'elsewhere.db'), join(root, 'out/hard'));
    expect(() => outside.checkFile(join(root, 'elsewhere.db'), { flag: 'path', force: true })).toThrow(/invalid path: .*the store file/);
    expect(() => outside.checkFile(join(root, 'out/hard'), { flag: 'path', force: true })).toThrow(/invalid path: .*the store file/);
  });

  it('refuses an existing file without force, a directory, and a missing parent', () => {
    writeFileSync(join(root, 'out/old.json'), 'old');
    expect(() => outputs.checkFile(join(root, 'out/old.json'), { flag: 'out' })).toThrow(/invalid out: .*exists; give --force/);
    expect(outputs.checkFile(join(root, 'out/old.json'), { flag: 'out', force: true })).toBe(join(realTarget(root), 'out/old.json'));
    expect(() => outputs.checkFile(join(root, 'out'), { flag: 'out', force: true })).toThrow(/is a directory/);
    expect(() => outputs.checkFile(join(root, 'nope/x.json'), { flag: 'out' })).toThrow(/is not a directory/);
    expect(() => outputs.checkFile('', { flag: 'out' })).toThrow(/invalid out: must not be empty/);
  });

  it('checks a directory target for every file it will hold', () => {
    expect(() => outputs.checkDir(join(root, 'data/export'), ['manifest.json'], { flag: 'out' })).toThrow(/inside the data dir/);
    writeFileSync(join(root, 'out/manifest.json'), '{}');
    expect(() => outputs.checkDir(join(root, 'out'), ['manifest.json', 'records.csv'], { flag: 'out' })).toThrow(/already holds manifest\.json; give --force/);
    symlinkSync(join(root, 'data/livingmemory.db'), join(root, 'out/records.csv'));
    expect(() => outputs.checkDir(join(root, 'out'), ['manifest.json', 'records.csv'], { flag: 'out', force: true })).toThrow(/records\.csv .*inside the data dir/);
  });
});

describe('writes through a temporary file', () => {
  it('leaves the old file whole and no temporary file when the write fails', async () => {
    const target = join(root, 'out/export.json');
    writeFileSync(target, 'old');
    await expect(
      writeThrough(target, (tmp) => {
        writeFileSync(tmp, 'half of the new');
        throw new Error('disk full');
      }, { flag: 'out', force: true }),
    ).rejects.toThrow(/disk full/);
    expect(readFileSync(target, 'utf8')).toBe('old');
    expect(readdirSync(join(root, 'out'))).toEqual(['export.json']);
  });

  it('replaces only with force, and refuses a file that appeared while it wrote', async () => {
    const target = join(root, 'out/export.json');
    await outputs.writeFile(target, 'one', { flag: 'out' });
    await expect(outputs.writeFile(target, 'two', { flag: 'out' })).rejects.toThrow(/exists; give --force/);
    await outputs.writeFile(target, 'two', { flag: 'out', force: true });
    expect(readFileSync(target, 'utf8')).toBe('two');
    const raced = join(root, 'out/raced.json');
    await expect(writeThrough(raced, (tmp) => {
      writeFileSync(tmp, 'mine');
      writeFileSync(raced, 'theirs');
    }, { flag: 'out' })).rejects.toThrow(/appeared meanwhile/);
    expect(readFileSync(raced, 'utf8')).toBe('theirs');
    expect(readdirSync(join(root, 'out')).sort()).toEqual(['export.json', 'raced.json']);
    expect(existsSync(join(root, 'data/new.json'))).toBe(false);
  });
});
