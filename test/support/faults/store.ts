import Database from 'better-sqlite3';
import { join } from 'node:path';
import { cliIn } from '../cli.js';

/**
 * Read-only looks at a store's file from outside the process under test: which memory ids the log
 * holds a MemoryWritten for, and which the live documents generation serves.
 */
export function storedMemories(dataDir: string): { logged: Set<string>; served: Map<string, { importance: number; status: string }> } {
  const db = new Database(join(dataDir, 'livingmemory.db'), { readonly: true, fileMustExist: true });
  try {
    const logged = db.prepare(`SELECT substr(stream_id, 8) FROM events WHERE type = 'MemoryWritten' AND stream_id LIKE 'memory-%'`).pluck().all() as string[];
    const generation = db.prepare(`SELECT generation FROM projection_generations WHERE name = 'documents' AND status = 'live'`).pluck().get() as number;
    const rows = db.prepare(`SELECT memory_id, importance, status FROM memory_vitals_g${generation}`).all() as { memory_id: string; importance: number; status: string }[];
    const served = new Map(rows.map((r) => [r.memory_id, { importance: r.importance, status: r.status }]));
    return { logged: new Set(logged), served };
  } finally {
    db.close();
  }
}

export interface StoreCheck {
  /** `lmem verify` (or `lmem start` when it failed) could not run on the store. */
  readonly bricked: boolean;
  /** The exit code of `lmem verify` when it was not 0. */
  readonly wrongExit: number | null;
  readonly detail: string;
}

/**
 * What a user does after a crash: `lmem verify`; if it finds something, `lmem start` (which repairs
 * what verify finds, ADR 24) and `verify` again. A store counts as bricked when start fails or the
 * second verify still is not clean; `verify` not exiting 0 straight after a crash is a wrong exit code.
 */
export function checkAfterCrash(dataDir: string): StoreCheck {
  const lmem = cliIn(dataDir).run;
  const first = lmem(['verify']);
  if (first.code === 0) return { bricked: false, wrongExit: null, detail: '' };
  const start = lmem(['start']);
  const again = start.code === 0 ? lmem(['verify']) : start;
  const detail = `verify exited ${first.code}: ${(first.stderr || first.stdout).trim().slice(0, 400)}; start exited ${start.code}; verify after start exited ${again.code}`;
  return { bricked: again.code !== 0, wrongExit: first.code, detail };
}
