import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The compiled CLI, as a user runs it; `npm test` builds dist/ before the suite starts. */
export const cliPath = join(process.cwd(), 'dist/src/interfaces/cli/main.cjs');

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `lmem` as a child process against one data directory (through LIVINGMEMORY_DATA_DIR). */
export function cliIn(dataDir: string, env: NodeJS.ProcessEnv = {}) {
  const run = (args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): CliRun => {
    const result = spawnSync(process.execPath, [cliPath, ...args], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, LIVINGMEMORY_DATA_DIR: dataDir, ...env, ...extraEnv },
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const json = <T = Record<string, unknown>>(args: readonly string[]): T => JSON.parse(run([...args, '--json']).stdout) as T;
  return { dataDir, run, json };
}

/** A fresh store directory made by `lmem start`. */
export function freshCli(prefix: string, env: NodeJS.ProcessEnv = {}) {
  const cli = cliIn(mkdtempSync(join(tmpdir(), prefix)), env);
  cli.run(['start']);
  return cli;
}

/** The log head read straight from the SQLite file (not through the CLI under test); 0 for no store. */
export function logHead(dataDir: string, file = 'livingmemory.db'): number {
  const path = join(dataDir, file);
  if (!existsSync(path)) return 0;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT coalesce(max(global_position), 0) AS head FROM events').get() as { head: number }).head;
  } finally {
    db.close();
  }
}
