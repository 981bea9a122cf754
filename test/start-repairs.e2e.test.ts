import Database from 'better-sqlite3';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSnapshot, writeSnapshot } from '../src/projections/vectors/snapshot.js';

// Issue 11, case 4: `start` left a changed documents row wrong, and a shadow killed half-way `building`.
const cli = join(process.cwd(), 'dist/src/interfaces/cli/main.cjs');
const root = mkdtempSync(join(tmpdir(), 'lmem-start-repairs-'));
const dataDir = join(root, 'data');
const dbFile = join(dataDir, 'livingmemory.db');
const memories = 600;
const env = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH, LIVINGMEMORY_DATA_DIR: dataDir, ...extra });
const lmem = (args: string[], extra: Record<string, string> = {}) => {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: env(extra) });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};
const liveTable = (db: Database.Database, projection: string, table: string): string =>
  `${table}_g${(db.prepare(`SELECT generation FROM projection_generations WHERE name = ? AND status = 'live'`).pluck().get(projection) as number)}`;
const building = (): { name: string; checkpoint: number }[] => {
  const db = new Database(dbFile, { readonly: true });
  try {
    return db.prepare(`SELECT name, checkpoint FROM projection_generations WHERE status = 'building'`).all() as { name: string; checkpoint: number }[];
  } finally {
    db.close();
  }
};

beforeAll(() => {
  const rows = Array.from({ length: memories }, (_, i) => ({ text: `Memory ${i}: person ${i % 97} likes topic ${i % 31} in city ${i % 13}` }));
  writeFileSync(join(root, 'memories.json'), JSON.stringify(rows));
  const imported = lmem(['import', join(root, 'memories.json')], { LIVINGMEMORY_SQLITE_SYNCHRONOUS: 'NORMAL' });
  expect(imported.code, imported.stderr).toBe(0);
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('start repairs everything verify finds', () => {
  it('finds and rebuilds changed rows in every kind of projection, vectors included, then verify is clean', () => {
    const db = new Database(dbFile);
    db.prepare(`UPDATE ${liveTable(db, 'documents', 'documents')} SET text = 'tampered' WHERE memory_id = (SELECT min(memory_id) FROM ${liveTable(db, 'documents', 'documents')})`).run();
    db.prepare(`UPDATE ${liveTable(db, 'graph', 'graph_entries')} SET text = 'tampered' WHERE rowid = 7`).run();
    db.prepare(`DELETE FROM ${liveTable(db, 'atoms', 'memory_atoms')} WHERE rowid = 11`).run();
    const events = liveTable(db, 'memory_events', 'memory_events');
    db.prepare(`DELETE FROM ${events} WHERE position = (SELECT min(position) FROM ${events})`).run();
    const sources = liveTable(db, 'memory_sources', 'memory_sources');
    db.prepare(`DELETE FROM ${sources} WHERE memory_id = (SELECT max(memory_id) FROM ${sources})`).run();
    const snapshotFile = join(dataDir, 'vectors', `vectors-g${db.prepare(`SELECT generation FROM projection_generations WHERE name = 'vectors' AND status = 'live'`).pluck().get() as number}.snap`);
    db.close();
    // A vector changed in a snapshot whose checksum still holds (written by the snapshot writer).
    const snapshot = readSnapshot(snapshotFile);
    if (!snapshot) throw new Error('no vector snapshot');
    const index = Buffer.from(snapshot.index);
    index.writeFloatLE(index.readFloatLE(index.length - 4) + 0.5, index.length - 4);
    writeSnapshot(snapshotFile, { ...snapshot, index });
    const before = lmem(['verify', '--json']);
    expect(before.code).toBe(3);
    const wrong = (JSON.parse(before.stdout) as { projections: { name: string; status: string }[] }).projections.filter((p) => p.status !== 'ok').map((p) => p.name);
    expect(wrong.sort()).toEqual(['atoms', 'documents', 'graph', 'memory_events', 'memory_sources', 'vectors']);

    const start = lmem(['start']);
    expect(start.code, start.stderr).toBe(0);
    for (const name of wrong) expect(start.stdout).toMatch(new RegExp(`repaired ${name}: differed from a replay of the log`));
    const after = lmem(['verify']);
    expect(after.code, after.stdout).toBe(0);
  }, 300_000);

  it('resumes a `rebuild documents` killed half-way, and verify is clean', async () => {
    const head = (JSON.parse(lmem(['status', '--json']).stdout) as { headPosition: number }).headPosition;
    // Small pages with a sync each: the rebuild takes long enough to be killed in the middle.
    const child = spawn(process.execPath, [cli, 'rebuild', 'documents'], { env: env({ LIVINGMEMORY_PROJECTIONS_PAGE_SIZE: '2' }), stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    let seen: { name: string; checkpoint: number } | undefined;
    while (child.exitCode === null && !(seen && seen.checkpoint > 200)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = building().find((b) => b.name === 'documents');
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const left = building();
    expect(left).toEqual([{ name: 'documents', checkpoint: expect.any(Number) }]);
    expect(left[0]?.checkpoint).toBeLessThan(head);

    const start = lmem(['start']);
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toMatch(/repaired documents: interrupted rebuild resumed/);
    expect(building()).toEqual([]);
    const status = JSON.parse(lmem(['status', '--json']).stdout) as { projections: { name: string; building: unknown }[] };
    expect(status.projections.every((p) => p.building === null)).toBe(true);
    const verified = lmem(['verify']);
    expect(verified.code, verified.stdout).toBe(0);
  }, 300_000);
});
