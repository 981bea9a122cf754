/**
 * Lifecycle benchmark (ADR 29), on stores built by the projections benchmark's `buildLog` (the
 * corpus's memories with their derived graph and atom events, vectors in the cache), opened as the
 * engine (scheduler and maintenance off), read models caught up before anything is timed.
 *
 *   node dist/test/bench/lifecycle.bench.js [--json] [--tick-memories=N] [--consolidation-memories=N]
 *
 * 1. decay tick: `engine.lifecycle.tick(at)` over --tick-memories (default 100,000) active memories:
 *    reading them, the decision, one append (DecayTicked + batched MemoryImportanceDecayed + atom
 *    transitions, hash chained) and the projections catching up. Raw: better-sqlite3 reading the same
 *    number of (id, importance, access count) rows of a plain table and updating each with the same
 *    rule in one transaction. Ratio = raw time / our time (target >= 0.3).
 * 2. consolidation: `engine.lifecycle.consolidate(at)` over --consolidation-memories (default
 *    10,000) by session (its backup, the plan, summaries, embeddings, the writes, the archives), and
 *    the semantic plan (a nearest-neighbour search per candidate). Raw: better-sqlite3 grouping the
 *    candidates by session in SQL. Times only; no target.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { decayOne } from '../../src/commands/lifecycle/decay.js';
import { loadConfig } from '../../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../../src/engine/engine.js';
import { migrateStore, writeMeta } from '../../src/engine/migrations.js';
import { packageVersion } from '../../src/engine/version.js';
import { openDatabase } from '../../src/events/log/sqlite-database.js';
import { createHashEmbeddingProvider } from '../../src/providers/embeddings/index.js';
import { buildLog } from './projections.bench.js';
import { logStart } from './log-events.js';
import { printReport, row, type BenchReport } from './report.js';
import { benchDir, intArg, isEntryPoint, progress, timed, type Timing } from './support.js';

const dayMs = 86_400_000;

export interface LifecycleBenchOptions {
  readonly tickMemories?: number;
  readonly consolidationMemories?: number;
}

/** A store of `count` corpus memories in `dir`, its schema current (a bench needs no migration backup), opened as the engine. */
async function openBuiltStore(dir: string, count: number): Promise<MemoryEngine> {
  mkdirSync(dir, { recursive: true });
  const built = await buildLog(join(dir, 'livingmemory.db'), count);
  await migrateStore(built.db, { backup: async () => 'none', restore: async () => undefined, describe: (b) => b });
  writeMeta(built.db, 'packageVersion', packageVersion());
  built.db.close();
  const config = loadConfig({ overrides: { dataDir: dir, backups: { dir: `${dir}-backups` } } });
  progress(`  opening the engine on ${count} memories (read models built, untimed)`);
  return createMemoryEngine(config, { maintenance: false, scheduler: false, embeddingProvider: createHashEmbeddingProvider(), llmProvider: null });
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

export async function runLifecycleBench(options: LifecycleBenchOptions = {}): Promise<BenchReport> {
  const tickMemories = options.tickMemories ?? intArg('tick-memories', 100_000);
  const consolidationMemories = options.consolidationMemories ?? intArg('consolidation-memories', 10_000);
  const bench = benchDir('lmem-bench-lifecycle-');
  try {
    // 1. One decay tick.
    progress(`lifecycle: a store of ${tickMemories} memories`);
    const tickDir = join(bench.dir, 'tick');
    const engine = await openBuiltStore(tickDir, tickMemories);
    // After the last memory was written (the corpus writes one a second from logStart), before any atom expires.
    const at = new Date(logStart + tickMemories * 1000 + dayMs / 24);
    let receipt: Awaited<ReturnType<MemoryEngine['lifecycle']['tick']>> | undefined;
    let rows: { memoryId: string; importance: number; accessCount: number }[] = [];
    let ours: Timing;
    try {
      // What the tick decays: the active memories its rule changes (not those at 1 or at the floor, which stay).
      const settings = loadConfig({}).lifecycle.decay;
      rows = engine.indexes.lifecycle.decayInputs(at.toISOString()).filter((r) => decayOne(r, settings, at.getTime()) !== null);
      progress(`  tick over ${rows.length} memories`);
      ours = await timed(async () => (receipt = await engine.lifecycle.tick(at)));
    } finally {
      await engine.close();
    }
    if (!receipt?.ticked || receipt.decayed !== rows.length) throw new Error(`the tick decayed ${receipt?.decayed} of ${rows.length} memories`);
    const raw = rawTick(bench.file('raw-tick'), rows);

    // 2. One consolidation run.
    progress(`lifecycle: a store of ${consolidationMemories} memories`);
    const consolidateDir = join(bench.dir, 'consolidate');
    const store = await openBuiltStore(consolidateDir, consolidationMemories);
    const later = new Date(logStart + consolidationMemories * 1000 + 8 * dayMs);
    let consolidated = 0;
    let merged = 0;
    let candidates = 0;
    let exec: Timing;
    try {
      exec = await timed(async () => {
        const result = await store.lifecycle.consolidate(later);
        candidates = result.candidates;
        consolidated = result.consolidated.length;
        merged = result.consolidated.reduce((n, c) => n + c.mergedMemoryIds.length, 0);
      });
    } finally {
      await store.close();
    }
    if (consolidated === 0) throw new Error('the consolidation run merged nothing');
    const semanticStore = await createMemoryEngine(
      loadConfig({ overrides: { dataDir: consolidateDir, backups: { dir: `${consolidateDir}-backups` }, lifecycle: { consolidation: { grouping: 'semantic' } } } }),
      { maintenance: false, scheduler: false, embeddingProvider: createHashEmbeddingProvider(), llmProvider: null },
    );
    let semanticGroups = 0;
    let semantic: Timing;
    try {
      semantic = await timed(async () => (semanticGroups = (await semanticStore.lifecycle.consolidatePreview(later)).groups.length));
    } finally {
      await semanticStore.close();
    }
    const rawGroups = timed(() => {
      const db = openDatabase(join(consolidateDir, 'livingmemory.db'));
      try {
        // The documents read model lives in generation tables (documents_g<N>, memory_vitals_g<N>); the live one is in projection_generations.
        const generation = db.prepare("SELECT generation FROM projection_generations WHERE name = 'documents' AND status = 'live'").pluck().get() as number;
        db.prepare(
          `SELECT json_extract(d.metadata, '$.sessionId') AS s, count(*) AS n FROM documents_g${generation} d JOIN memory_vitals_g${generation} v USING (memory_id)
           WHERE v.status = 'active' AND v.importance < 0.5 GROUP BY s HAVING n >= 3`,
        ).all();
      } finally {
        db.close();
      }
    });
    const rawGrouping = await rawGroups;

    return {
      title: 'Lifecycle benchmark (ADR 29)',
      meta: {
        tickMemories: rows.length,
        tickAtomTransitions: receipt.atomTransitions,
        consolidationMemories,
        consolidationCandidates: candidates,
        consolidatedGroups: consolidated,
        mergedMemories: merged,
        semanticGroupsPlanned: semanticGroups,
      },
      rows: [
        row(`decay tick over ${rows.length / 1000}k memories`, rows.length / ours.wall, rows.length / raw.wall, 'memories/s', 0.3, {
          note: 'ours: read, decide, one hash-chained append of the tick and its batches, projections caught up; raw: SELECT + UPDATE of a plain table in one transaction',
        }),
        row(`consolidation exec over ${consolidationMemories / 1000}k (by session)`, exec.wall, rawGrouping.wall, 's', undefined, {
          better: 'lower',
          note: 'ours: backup, plan, summaries, embeddings, writes and archives of at most 5 groups; raw: the session GROUP BY alone (a floor, not the same work)',
        }),
        row(`consolidation plan over ${consolidationMemories / 1000}k (semantic)`, semantic.wall, rawGrouping.wall, 's', undefined, { better: 'lower' }),
      ],
    };
  } finally {
    bench.remove();
  }
}

if (isEntryPoint(import.meta.url)) {
  runLifecycleBench().then((report) => printReport(report), (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
