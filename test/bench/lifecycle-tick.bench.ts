/**
 * The lifecycle benchmark's decay tick row (ADR 29), on a store of the corpus's memories built once
 * by the projections benchmark's `buildLog` and copied for every run (`--tick-runs=K`, default 1):
 * each run opens its own copy as the engine, catches the read models up and ticks the store's first
 * date (untimed), and times `engine.lifecycle.tick(at)`, which ticks the next date; then raw
 * better-sqlite3 reads the same (id, importance, access count) rows from a plain table and updates
 * each with the same rule in one transaction. Ratio =
 * raw time / our time (target >= 0.3). `--keep-stores=DIR` keeps the built store in DIR and uses it
 * again in later runs of the benchmark (building 100k memories takes many minutes); a kept store
 * whose read models an older build wrote is rebuilt by the open, untimed. Each copy is synced to
 * disk before the tick and again before the raw side, so neither waits on the other's writeback.
 */
import { closeSync, cpSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decayInputsOf, decayOne } from '../../src/commands/lifecycle/decay.js';
import { loadConfig } from '../../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../../src/engine/engine.js';
import { migrateStore, writeMeta } from '../../src/engine/migrations.js';
import { packageVersion } from '../../src/engine/version.js';
import { openDatabase } from '../../src/events/log/sqlite-database.js';
import { createHashEmbeddingProvider } from '../../src/providers/embeddings/index.js';
import { buildLog } from './projections.bench.js';
import { logStart } from './log-events.js';
import { row, type BenchRow } from './report.js';
import { progress, timed, type Timing } from './support.js';

const dayMs = 86_400_000;
/** The default tick hour (03:00 UTC). */
const tickHourMs = 3 * 3_600_000;

/** The engine on a built store in `dir` (scheduler and maintenance off, hash embeddings). */
export function openBenchEngine(dir: string, overrides: Record<string, unknown> = {}): Promise<MemoryEngine> {
  const config = loadConfig({ overrides: { dataDir: dir, backups: { dir: `${dir}-backups` }, ...overrides } });
  return createMemoryEngine(config, { maintenance: false, scheduler: false, embeddingProvider: createHashEmbeddingProvider(), llmProvider: null });
}

/** A store of `count` corpus memories in `dir`, its schema current (a bench needs no migration backup), opened as the engine. */
export async function openBuiltStore(dir: string, count: number): Promise<MemoryEngine> {
  mkdirSync(dir, { recursive: true });
  const built = await buildLog(join(dir, 'livingmemory.db'), count);
  await migrateStore(built.db, { backup: async () => 'none', restore: async () => undefined, describe: (b) => b });
  writeMeta(built.db, 'packageVersion', packageVersion());
  built.db.close();
  progress(`  opening the engine on ${count} memories (read models built, untimed)`);
  return openBenchEngine(dir);
}

/** The built store of `count` memories under `root`, built (and its read models caught up) when it is not there yet. */
async function builtStore(root: string, count: number): Promise<string> {
  const dir = join(root, `tick-${count}`);
  if (existsSync(join(dir, 'built'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  const engine = await openBuiltStore(dir, count);
  await engine.indexes.catchUp();
  await engine.close();
  writeFileSync(join(dir, 'built'), new Date().toISOString());
  return dir;
}

/** The raw baseline of a tick: read (id, importance, count) rows, update each with the rule, one transaction. */
function rawTick(path: string, rows: readonly { memoryId: string; importance: number; accessCount: number }[]): Timing {
  const db = openDatabase(path);
  try {
    db.exec('CREATE TABLE memories (memory_id TEXT PRIMARY KEY, importance REAL NOT NULL, access_count INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO memories VALUES (?, ?, ?)');
    db.transaction(() => rows.forEach((r) => insert.run(r.memoryId, r.importance, r.accessCount)))();
    const select = db.prepare('SELECT memory_id AS id, importance, access_count AS n FROM memories');
    const update = db.prepare('UPDATE memories SET importance = ?, access_count = ? WHERE memory_id = ?');
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    db.transaction(() => {
      for (const r of select.all() as { id: string; importance: number; n: number }[]) {
        update.run(Math.max(0.01, Math.round(r.importance * 0.99 * 10_000) / 10_000), Math.floor(r.n / 2), r.id);
      }
    })();
    const cpu = process.cpuUsage(cpuStart);
    return { wall: Number(process.hrtime.bigint() - start) / 1e9, cpu: (cpu.user + cpu.system) / 1e6 };
  } finally {
    db.close();
  }
}

/** Waits until every file under `dir` is on disk: a 2 GB copy still being written back would stall the tick's fsyncs. */
function syncTree(dir: string): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) syncTree(path);
    else {
      const fd = openSync(path, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  }
}

/** One run: a fresh copy of the built store, its tick timed, then the raw baseline over the rows it decayed. */
async function tickRun(store: string, dir: string, count: number, run: number): Promise<{ decayed: number; atomTransitions: number; ours: Timing; raw: Timing }> {
  const copy = join(dir, `run-${run}`);
  cpSync(store, copy, { recursive: true });
  syncTree(copy);
  try {
    const engine = await openBenchEngine(copy);
    // A tick catches up every date since the store's first event (ADR 29): the corpus writes one
    // memory a second from logStart (00:00 UTC), so the first date's tick (03:00) is run untimed,
    // and the timed one is the next date's, the last tick hour before any atom expires.
    const first = new Date(logStart + tickHourMs);
    const at = new Date(first.getTime() + dayMs);
    let receipt: Awaited<ReturnType<MemoryEngine['lifecycle']['tick']>> | undefined;
    let rows: { memoryId: string; importance: number; accessCount: number }[] = [];
    let ours: Timing;
    try {
      await engine.indexes.catchUp();
      if ((await engine.lifecycle.tick(first)).ticks.length !== 1) throw new Error('the untimed first tick did not tick one date');
      syncTree(copy);
      // What the tick decays: the active memories its rule changes (not those at 1 or at the floor, which stay).
      const settings = loadConfig({}).lifecycle.decay;
      rows = decayInputsOf(engine.indexes.lifecycle.decayInputs(at.toISOString())).filter((r) => decayOne(r, settings, at.getTime()) !== null);
      progress(`  tick run ${run}: over ${rows.length} memories`);
      ours = await timed(async () => (receipt = await engine.lifecycle.tick(at)));
    } finally {
      await engine.close();
    }
    if (receipt?.ticks.length !== 1 || receipt.decayed !== rows.length) throw new Error(`the tick ticked ${receipt?.ticks.length} dates, decayed ${receipt?.decayed} of ${rows.length} memories`);
    // The raw side starts as clean: what the engine's close wrote (vector snapshots) is on disk first.
    syncTree(copy);
    return { decayed: rows.length, atomTransitions: receipt.atomTransitions, ours, raw: rawTick(join(copy, 'raw-tick.db'), rows) };
  } finally {
    rmSync(copy, { recursive: true, force: true });
    rmSync(`${copy}-backups`, { recursive: true, force: true });
  }
}

/** The tick row, once per run, on copies of one built store. */
export async function tickRows(dir: string, count: number, runs: number, keep?: string): Promise<{ rows: BenchRow[]; meta: Record<string, number> }> {
  progress(`lifecycle: a store of ${count} memories${keep ? ` (kept in ${keep})` : ''}`);
  const store = await builtStore(keep ?? dir, count);
  const rows: BenchRow[] = [];
  const meta: Record<string, number> = {};
  for (let run = 1; run <= runs; run += 1) {
    const r = await tickRun(store, dir, count, run);
    meta.tickMemories = r.decayed;
    meta.tickAtomTransitions = r.atomTransitions;
    const name = `decay tick over ${r.decayed / 1000}k memories${runs > 1 ? ` (run ${run} of ${runs})` : ''}`;
    const note = 'ours: read, decide, one hash-chained append of the tick and its batches, projections caught up; raw: SELECT + UPDATE of a plain table in one transaction';
    rows.push(row(name, r.decayed / r.ours.wall, r.decayed / r.raw.wall, 'memories/s', 0.3, run === 1 ? { note } : {}));
  }
  return { rows, meta };
}
