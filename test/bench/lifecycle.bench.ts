/**
 * Lifecycle benchmark (ADR 29), on stores built by the projections benchmark's `buildLog` (the
 * corpus's memories with their derived graph and atom events, vectors in the cache), opened as the
 * engine (scheduler and maintenance off), read models caught up before anything is timed.
 *
 *   node dist/test/bench/lifecycle.bench.js [--json] [--tick-memories=N] [--tick-runs=K] [--keep-stores=DIR] [--consolidation-memories=N]
 *
 * 1. decay tick (lifecycle-tick.bench.ts): `engine.lifecycle.tick(at)` over --tick-memories
 *    (default 100,000) active memories: reading them, the decision, one append (DecayTicked +
 *    batched MemoryImportanceDecayed + atom transitions, hash chained) and the projections catching
 *    up; --tick-runs times (default 1), each on a fresh copy of one built store. Raw: better-sqlite3
 *    reading the same number of (id, importance, access count) rows of a plain table and updating
 *    each with the same rule in one transaction. Ratio = raw time / our time (target >= 0.3).
 * 2. consolidation: `engine.lifecycle.consolidate(at)` over --consolidation-memories (default
 *    10,000) by session (its backup, the plan, summaries, embeddings, the writes, the archives), and
 *    the semantic plan (a nearest-neighbour search per candidate). Raw: better-sqlite3 grouping the
 *    candidates by session in SQL. Times only; no target.
 */
import { join } from 'node:path';
import { openDatabase } from '../../src/events/log/sqlite-database.js';
import { logStart } from './log-events.js';
import { openBenchEngine, openBuiltStore, tickRows } from './lifecycle-tick.bench.js';
import { reportWhenEntryPoint, row, type BenchReport } from './report.js';
import { benchDir, intArg, progress, strArg, timed, type Timing } from './support.js';

const dayMs = 86_400_000;

export interface LifecycleBenchOptions {
  readonly tickMemories?: number;
  readonly tickRuns?: number;
  readonly consolidationMemories?: number;
}

export async function runLifecycleBench(options: LifecycleBenchOptions = {}): Promise<BenchReport> {
  const tickMemories = options.tickMemories ?? intArg('tick-memories', 100_000);
  const consolidationMemories = options.consolidationMemories ?? intArg('consolidation-memories', 10_000);
  const bench = benchDir('lmem-bench-lifecycle-');
  try {
    // 1. One decay tick (or several, each on its own copy of the store).
    const tick = await tickRows(bench.dir, tickMemories, options.tickRuns ?? intArg('tick-runs', 1), strArg('keep-stores'));

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
    const semanticStore = await openBenchEngine(consolidateDir, { lifecycle: { consolidation: { grouping: 'semantic' } } });
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
        ...tick.meta,
        consolidationMemories,
        consolidationCandidates: candidates,
        consolidatedGroups: consolidated,
        mergedMemories: merged,
        semanticGroupsPlanned: semanticGroups,
      },
      rows: [
        ...tick.rows,
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

reportWhenEntryPoint(import.meta.url, runLifecycleBench);
