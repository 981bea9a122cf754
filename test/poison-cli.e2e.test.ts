import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { logCeilings } from '../src/events/bounds.js';
import { openDatabase } from '../src/events/log/sqlite-database.js';
import { createSqliteEventLog } from '../src/events/log/sqlite-event-log.js';
import { streams } from '../src/events/streams.js';
import { memoryWrittenEvent } from './support/events.js';
import { freshCli, logHead, type CliRun } from './support/cli.js';

// Issue 11 case 1, as a user met it: one 10 MiB memory, through the CLI (ADR 23).
const tenMiB = 'y'.repeat(10 * 1024 * 1024);
const scratch = mkdtempSync(join(tmpdir(), 'lmem-poison-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** No command may die of an event in the log: no stack overflow, no stack trace. */
const noCrash = (run: CliRun): void => {
  expect(run.stderr).not.toMatch(/Maximum call stack|RangeError|\n\s+at /);
};

/** What old code could do: a 10 MiB MemoryWritten appended straight to the log, past today's bounds. */
async function appendAsOldCodeDid(dataDir: string): Promise<void> {
  const db = openDatabase(join(dataDir, 'livingmemory.db'));
  const ceilings = logCeilings as { textBytes: number; eventBytes: number };
  const saved = { ...ceilings };
  Object.assign(ceilings, { textBytes: Number.MAX_SAFE_INTEGER, eventBytes: Number.MAX_SAFE_INTEGER });
  try {
    await createSqliteEventLog(db).append(streams.memory('m-huge'), [memoryWrittenEvent('m-huge', tenMiB)]);
  } finally {
    Object.assign(ceilings, saved);
    db.close();
  }
}

describe('one long memory no longer bricks the store (issue 11, case 1)', () => {
  it('`lmem import` of one 10 MiB entry exits 2 naming the field, and leaves no event in the log', () => {
    const cli = freshCli('lmem-case1-');
    const file = join(scratch, 'huge.json');
    writeFileSync(file, JSON.stringify([{ text: tenMiB }]));
    const head = logHead(cli.dataDir);
    const run = cli.run(['import', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/text.*limit is 65536.*limits\.memoryTextBytes/);
    noCrash(run);
    expect(logHead(cli.dataDir)).toBe(head);
    for (const args of [['status'], ['verify'], ['start']]) expect(cli.run(args).code).toBe(0);
    rmSync(cli.dataDir, { recursive: true, force: true });
  }, 120_000);

  it('a store whose log already holds a 10 MiB memory opens: status, verify, start and search all work', async () => {
    const cli = freshCli('lmem-case1-old-');
    cli.run(['add', 'a small memory about tea']);
    await appendAsOldCodeDid(cli.dataDir);
    // --top-k 1: the 10 MiB memory itself would be more output than spawnSync buffers.
    for (const args of [['status'], ['verify'], ['start'], ['search', 'tea', '--top-k', '1']]) {
      const run = cli.run(args);
      noCrash(run);
      expect({ args, code: run.code }).toEqual({ args, code: 0 });
    }
    expect(cli.run(['search', 'tea', '--top-k', '1']).stdout).toMatch(/a small memory about tea/);
    rmSync(cli.dataDir, { recursive: true, force: true });
  }, 180_000);

  it('an event no read model can read: status and verify name the stopped read models, queries say so, the fix plus start recovers', async () => {
    const cli = freshCli('lmem-poison-row-');
    for (const text of ['first memory about tea', 'second memory about coffee', 'third memory about tea']) cli.run(['add', text]);
    // A row damaged before any read model read it (a torn write, a tampered file): appended here, then damaged.
    const dbFile = join(cli.dataDir, 'livingmemory.db');
    const db = openDatabase(dbFile);
    const { lastPosition } = await createSqliteEventLog(db).append(streams.memory('m-late'), [memoryWrittenEvent('m-late', 'a late memory about tea')]);
    const position = Number(lastPosition);
    const original = (db.prepare('SELECT data FROM events WHERE global_position = ?').get(position) as { data: string }).data;
    db.prepare('UPDATE events SET data = ? WHERE global_position = ?').run('{not json', position);
    db.close();

    const status = cli.run(['status']);
    noCrash(status);
    expect(status.code).toBe(0);
    for (const name of ['documents', 'fts', 'graph', 'vectors']) expect(status.stdout).toMatch(new RegExp(`FAILED ${name} at log position ${position}: CorruptEventError`));
    const verify = cli.run(['verify']);
    noCrash(verify);
    expect(verify.code).toBe(3);
    expect(verify.stdout).toMatch(new RegExp(`stopped at log position ${position}`));
    const start = cli.run(['start']);
    noCrash(start);
    expect(start.code).toBe(3);
    const search = cli.run(['search', 'tea']);
    noCrash(search);
    expect(search.code).not.toBe(0);
    expect(search.stderr).toMatch(/failed at log position .*lmem rebuild/);

    // The fix (here: the row as it was), then `rebuild documents` or `start`, which replays every stopped read model.
    const fix = openDatabase(dbFile);
    fix.prepare('UPDATE events SET data = ? WHERE global_position = ?').run(original, position);
    fix.close();
    expect(cli.run(['rebuild', 'documents']).code).toBe(0);
    expect(cli.run(['status']).stdout).not.toMatch(/FAILED documents/);
    const again = cli.run(['start']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/repaired fts: had stopped at an event; replayed/);
    expect(again.stdout).not.toMatch(/FAILED/);
    expect(cli.run(['verify']).code).toBe(0);
    expect(cli.run(['search', 'tea']).stdout).toMatch(/a late memory about tea/);
    rmSync(cli.dataDir, { recursive: true, force: true });
  }, 180_000);
});
