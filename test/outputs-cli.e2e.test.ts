import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 11, case 2: `export --out <dataDir>/livingmemory.db` (or a symlink to it) destroyed the log.
const cli = join(process.cwd(), 'dist/src/interfaces/cli/main.cjs');
const root = mkdtempSync(join(tmpdir(), 'lmem-outputs-'));
const dataDir = join(root, 'data');
const out = join(root, 'out');
const lmem = (args: string[]) => {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: root, env: { PATH: process.env.PATH, LIVINGMEMORY_DATA_DIR: dataDir } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [relative(dataDir, join(dir, e.name))])).sort();
const head = (): number => (JSON.parse(lmem(['status', '--json']).stdout) as { headPosition: number }).headPosition;

beforeAll(() => {
  expect(lmem(['add', 'Ann drinks green tea', '--user', 'ann']).code).toBe(0);
  mkdirSync(out);
  symlinkSync(join(dataDir, 'livingmemory.db'), join(out, 'db-link'));
  symlinkSync(dataDir, join(out, 'data-link'));
}, 30_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Each command with each target that reaches the store: the store file, a symlink to it, a new
// file under a symlink to the data dir, a new file in the data dir, the vector snapshot.
const bad = ['data/livingmemory.db', 'out/db-link', 'out/data-link/new.json', 'data/new.json', 'data/vectors/vectors-g1.snap', 'out/data-link/livingmemory.db-wal'];
const commands: [string, (target: string) => string[], string][] = [
  ['export', (t) => ['export', '--out', t], 'out'],
  ['export --force', (t) => ['export', '--out', t, '--force'], 'out'],
  ['backup --force', (t) => ['backup', t, '--force'], 'path'],
  ['compliance-export', (t) => ['compliance-export', '--all', '--out', t, '--force'], 'out'],
];

describe('outputs never touch the store', () => {
  it('refuses every target that resolves into the store with exit 2 naming the flag, and writes nothing', () => {
    const before = files(dataDir);
    const position = head();
    for (const [name, args, flag] of commands) {
      for (const target of bad) {
        const run = lmem(args(target));
        expect(run.code, `${name} ${target}: ${run.stderr}`).toBe(2);
        expect(run.stderr).toMatch(new RegExp(`^lmem: invalid ${flag}: .*(inside the data dir|the store file)`));
      }
    }
    expect(files(dataDir)).toEqual(before);
    expect(head()).toBe(position);
    const verified = lmem(['verify']);
    expect(verified.code, verified.stdout).toBe(0);
  }, 120_000);

  it('refuses to replace an existing file without --force, and replaces it whole with it', () => {
    const target = join(out, 'memories.json');
    writeFileSync(target, 'keep me');
    for (const [args, flag] of [[['export', '--out', target], 'out'], [['backup', target], 'path']] as const) {
      const run = lmem([...args]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(new RegExp(`invalid ${flag}: .*memories\\.json exists; give --force`));
      expect(readFileSync(target, 'utf8')).toBe('keep me');
    }
    expect(lmem(['export', '--out', target, '--force']).code).toBe(0);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toMatchObject({ memories: [{ text: 'Ann drinks green tea' }] });
    const backup = join(out, 'copy.db');
    expect(lmem(['backup', backup]).code).toBe(0);
    expect(readFileSync(backup).subarray(0, 15).toString()).toBe('SQLite format 3');
    // Nothing but the outputs themselves: no temporary file stays behind.
    expect(readdirSync(out).sort()).toEqual(['copy.db', 'data-link', 'db-link', 'memories.json']);
  }, 60_000);

  it('writes a compliance export only into a directory free of another export, unless --force', () => {
    const dir = join(out, 'export');
    expect(lmem(['compliance-export', '--all', '--out', dir]).code).toBe(0);
    const again = lmem(['compliance-export', '--all', '--out', dir]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/invalid out: .*already holds manifest\.json, manifest\.sig, records\.jsonl, records\.csv; give --force/);
    expect(lmem(['compliance-export', '--all', '--out', dir, '--force', '--format', 'jsonl']).code).toBe(0);
    // The CSV of the first export is gone with --force: the directory holds one export, whole.
    expect(readdirSync(dir).sort()).toEqual(['manifest.json', 'manifest.sig', 'records.jsonl']);
    expect(lmem(['compliance-export', '--verify', dir]).code).toBe(0);
  }, 60_000);
});
