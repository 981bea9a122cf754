import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { cliPath } from './erasure-scan.js';

export interface Killed {
  /** How the child ended: 'SIGKILL' when the test killed it, else its exit code. */
  readonly ended: string;
  readonly stderr: string;
}

/**
 * Runs `lmem erase ...` in a real child process and SIGKILLs it: when it prints that it paused at
 * `pauseAt` (LMEM_TEST_ERASURE_PAUSE), or, with `watch`, as soon as the check sees the store at
 * the wanted state (polled every few milliseconds from this process). Resolves when it is dead.
 */
export function killErase(dataDir: string, args: readonly string[], how: { pauseAt: string } | { watch: () => boolean }, ms = 120_000): Promise<Killed> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', LIVINGMEMORY_DATA_DIR: dataDir };
  if ('pauseAt' in how) env['LMEM_TEST_ERASURE_PAUSE'] = how.pauseAt;
  const child = spawn(process.execPath, [cliPath, 'erase', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise<Killed>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the erasure never reached its kill point in ${ms} ms: ${stderr}`));
    }, ms);
    const poll = 'watch' in how ? setInterval(() => (how.watch() ? child.kill('SIGKILL') : undefined), 2) : undefined;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if ('pauseAt' in how && stderr.includes(`erasure paused at ${how.pauseAt}\n`)) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      resolve({ ended: signal ?? String(code), stderr });
    });
  });
}

/** A check that is true once the store's log holds an event of this type (read-only, from outside the child). */
export function logHas(dataDir: string, type: string): { check: () => boolean; close: () => void } {
  let db: Database.Database | undefined;
  return {
    check: () => {
      try {
        db ??= new Database(join(dataDir, 'livingmemory.db'), { readonly: true, fileMustExist: true });
        return db.prepare('SELECT 1 FROM events WHERE type = ? LIMIT 1').get(type) !== undefined;
      } catch {
        return false;
      }
    },
    close: () => db?.close(),
  };
}

/** The erasure events of the store, in order (they carry no content, so they read in clear). */
export function erasureTrail(dataDir: string): { type: string; step?: string }[] {
  const db = new Database(join(dataDir, 'livingmemory.db'), { readonly: true });
  try {
    const rows = db.prepare("SELECT type, data FROM events WHERE stream_id = 'system-erasures' ORDER BY global_position").all() as { type: string; data: string }[];
    return rows.map((r) => {
      const step = (JSON.parse(r.data) as { step?: string }).step;
      return step === undefined ? { type: r.type } : { type: r.type, step };
    });
  } finally {
    db.close();
  }
}
