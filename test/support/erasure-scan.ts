import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

// The compiled CLI, as a user runs it; `npm test` builds dist/ first.
export const cliPath = join(process.cwd(), 'dist/src/interfaces/cli/main.cjs');

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `lmem` on a data dir in a child process, with only PATH and the data dir in its environment. */
export function lmemIn(dataDir: string, args: readonly string[], env: Record<string, string> = {}): CliResult {
  const result = spawnSync(process.execPath, [cliPath, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', LIVINGMEMORY_DATA_DIR: dataDir, ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Every file under `dir` (the database, its WAL and shared memory, vector snapshots, anything else). */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The files whose bytes hold any of `needles` (a text's encodings, a vector's bytes). */
export function filesHolding(paths: readonly string[], needles: readonly Buffer[]): string[] {
  return paths.filter((path) => {
    const bytes = readFileSync(path);
    return needles.some((n) => bytes.includes(n));
  });
}

/** For each marker, the files whose bytes hold it (UTF-8, and UTF-16LE as SQLite could store text). */
export function markersIn(paths: readonly string[], markers: readonly string[]): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const marker of markers) {
    const hits = filesHolding(paths, [Buffer.from(marker, 'utf8'), Buffer.from(marker, 'utf16le')]);
    if (hits.length > 0) found[marker] = hits;
  }
  return found;
}
