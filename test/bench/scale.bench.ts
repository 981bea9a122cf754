/**
 * Scale rows of the projections benchmark (issue 17), each beside a baseline measured in the same run:
 *
 * - import: `engine.importMemories` of --imports memories (default 2,000; at most 10,000, the import
 *   limit) from one native JSON file, hash embeddings, into a fresh store, vs raw better-sqlite3
 *   inserting the same MemoryWritten rows a thousand per transaction (`rawBatched` of core.bench.ts).
 * - full rebuild: rebuildEveryIndex (every SQLite projection and both vector indexes in one replay of the log), in events/s, vs raw
 *   better-sqlite3 INSERTs of exactly the rows it wrote (same DDL) + raw FAISS adds of its vectors
 *   (raw-rebuild.ts); and, as a reference, vs the old baseline (raw inserts of the documents rows only).
 * - event loop: the longest pause of the event loop (perf_hooks.monitorEventLoopDelay) while the
 *   engine rebuilds every read model (the SQLite ones in one replay, then both vector indexes) under
 *   a recall load (one recall after another, distinct queries), vs the longest pause of the same
 *   recall load alone; and the same figure against the issue's 50 ms budget.
 * - erasure: `engine.eraseSubject` of one user of the corpus's 100 on the rebuilt store, with and
 *   without the managed backup it takes first, vs the full rebuild (rebuildEveryIndex) measured
 *   earlier in the same run on the same log (erasure-rows.ts).
 *
 * Alone (only these rows, with their own log and full rebuild):
 *   node dist/test/bench/scale.bench.js [--json] [--memories=N] [--imports=N] [--writes=N] [--only=writes]
 * (--writes: memories through writeMemory one by one and through writeMemories, default 500;
 * --only=writes: the write and import rows only, no log built, no rebuild.)
 */
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { rebuildEveryIndex, engineProjections } from '../../src/engine/indexes.js';
import { createHashEmbeddingProvider, type EmbeddingProvider } from '../../src/providers/embeddings/index.js';
import { maxImportEntries, nativeFormat, nativeVersion } from '../../src/replay/transfer/format.js';
import { openTestEngine, testEnvironment } from '../support/engine.js';
import { chunks, rawBatched, rawSingle } from './core.bench.js';
import { memoryInput, type MemoryInput } from './corpus.js';
import { logStart, writtenEvent } from './log-events.js';
import { distinctQueries } from './recall.bench.js';
import { reportWhenEntryPoint, row, type BenchReport, type BenchRow } from './report.js';
import { benchDir, intArg, strArg, machineMeta, progress, quantile, rates, timed, type Timing } from './support.js';
import { erasureRows } from './erasure-rows.js';
import { rebuildRows } from './raw-rebuild.js';
import { buildLog, engineWrites } from './projections.bench.js';

type Engine = Awaited<ReturnType<typeof openTestEngine>>;

/** writeMemory/s the issue measured before it (92-130 memories/s): its target is four times the higher figure. */
export const issueWriteMemoryRate = 130;

/** Callers writing at once in the group-commit row (an HTTP door's concurrent requests). */
const writeCallers = 16;

/** The issue's bound on the event loop's longest pause during a rebuild under recall load. */
export const eventLoopBudgetMs = 50;

/** `count` corpus memories (seed 4) with no two alike in (text, session, persona): an import writes them all. */
function importInputs(count: number, seed: number): MemoryInput[] {
  const seen = new Set<string>();
  const out: MemoryInput[] = [];
  for (let i = 0; out.length < count; i += 1) {
    const input = memoryInput(i, seed);
    const key = JSON.stringify([input.text, input.sessionId, input.personaId]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(input);
  }
  return out;
}

const importFile = (inputs: readonly MemoryInput[]): string => JSON.stringify({ format: nativeFormat, version: nativeVersion, memories: inputs });

async function importInto(dir: string, inputs: readonly MemoryInput[]) {
  const engine = await openTestEngine(dir);
  try {
    const content = importFile(inputs);
    let written = 0;
    const timing = await timed(async () => {
      written = (await engine.importMemories({ content, source: 'bench' })).memoryIds.length;
    });
    if (written !== inputs.length || engine.documents.count() !== inputs.length) {
      throw new Error(`the import wrote ${written} memories, documents holds ${engine.documents.count()}, expected ${inputs.length}`);
    }
    return timing;
  } finally {
    await engine.close();
  }
}

/** Import memories/s vs raw batched inserts of the same MemoryWritten rows. */
export async function importRows(root: string, file: (name: string) => string, count: number): Promise<BenchRow[]> {
  progress(`projections 5. import of ${count} memories (after a warm-up of 100)`);
  await importInto(join(root, 'import-warm'), importInputs(100, 5));
  const inputs = importInputs(count, 4);
  const events = inputs.map((input, i) => writtenEvent(`imp-${i}`, input, logStart + i * 1000));
  const raw = await rawBatched(file('import-raw'), chunks(events, 1_000), count);
  const ours = rates(count, await importInto(join(root, 'import'), inputs));
  return [
    row(`import vs raw batched MemoryWritten inserts (N=${count})`, ours.wall, raw.wall, 'memories/s', 0.03, {
      note:
        'ours = engine.importMemories of one native JSON file: parse, validate, de-duplicate against the store, embed (hash), ' +
        'then every memory written with its derived graph and atom events and every read model caught up; ' +
        'raw = the same MemoryWritten rows INSERTed a thousand per transaction, no derived events, no projections',
    }),
    row(`cpu: import vs raw batched MemoryWritten inserts (N=${count})`, ours.cpu, raw.cpu, 'memories/cpu-s'),
  ];
}

/** writeMemory one by one vs raw single inserts, writeMemories vs raw batched inserts, of the same MemoryWritten rows. */
async function writeRows(root: string, file: (name: string) => string, count: number): Promise<BenchRow[]> {
  progress(`scale: writeMemory and writeMemories, ${count} memories each (after a warm-up of 100)`);
  await engineWrites(join(root, 'writes-warm'), Array.from({ length: 100 }, (_, i) => memoryInput(i, 3)));
  const inputs = Array.from({ length: count }, (_, i) => memoryInput(i, 2));
  const events = inputs.map((input, i) => writtenEvent(`w-${i}`, input, logStart + i * 1000));
  const single = rates(count, await engineWrites(join(root, 'writes-single'), inputs));
  const concurrent = rates(count, await engineWrites(join(root, 'writes-concurrent'), inputs, 'single', writeCallers));
  const rawOne = await rawSingle(file('writes-raw'), events);
  const batched = rates(count, await engineWrites(join(root, 'writes-batched'), inputs, 'batched'));
  const rawMany = await rawBatched(file('writes-raw-batched'), chunks(events, 1_000), count);
  return [
    row(`writeMemory vs raw MemoryWritten inserts, 1/transaction (N=${count})`, single.wall, rawOne.wall, 'memories/s'),
    row(`cpu: writeMemory vs raw MemoryWritten inserts, 1/transaction (N=${count})`, single.cpu, rawOne.cpu, 'memories/cpu-s'),
    row(`writeMemory vs 4x the issue's ${issueWriteMemoryRate}/s`, single.wall, 4 * issueWriteMemoryRate, 'memories/s', 1, {
      note: `not a baseline of this run: the issue's figure for writeMemory before it (92-${issueWriteMemoryRate}/s), times the four it asks for; the raw row above is this run's`,
    }),
    row(`writeMemory, ${writeCallers} callers at once, vs raw MemoryWritten inserts, 1/transaction (N=${count})`, concurrent.wall, rawOne.wall, 'memories/s', undefined, {
      note: `${writeCallers} callers each awaiting one writeMemory after another: concurrent calls share one append and one catch-up (group commit, ADR 32); the raw row is single inserts one after another`,
    }),
    row(`writeMemory, ${writeCallers} callers at once, vs 4x the issue's ${issueWriteMemoryRate}/s`, concurrent.wall, 4 * issueWriteMemoryRate, 'memories/s', 1),
    row(`writeMemories (batches of 256) vs raw batched inserts (N=${count})`, batched.wall, rawMany.wall, 'memories/s'),
    row(`cpu: writeMemories vs raw batched inserts (N=${count})`, batched.cpu, rawMany.cpu, 'memories/cpu-s'),
  ];
}

/** Runs one recall after another until `stop` says so; returns each one's latency (ms). */
function recallLoad(engine: Engine, queries: readonly string[]) {
  let stopped = false;
  const latencies: number[] = [];
  const done = (async () => {
    for (let n = 0; !stopped; n += 1) {
      // A recall can complete in microtasks only (the recall cache): yield as requests arriving over I/O would.
      await new Promise((resolve) => setImmediate(resolve));
      const t0 = process.hrtime.bigint();
      await engine.recall({ query: queries[n % queries.length] as string, scope: { mode: 'global' }, topK: 5 });
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  })();
  return {
    latencies,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

/** The longest pause (ms) of the event loop while `work` runs beside a recall load, and the recalls' latencies. */
async function maxDelayUnder(engine: Engine, queries: readonly string[], work: () => Promise<unknown>) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const load = recallLoad(engine, queries);
  try {
    await work();
  } finally {
    await load.stop();
    histogram.disable();
  }
  return { maxMs: histogram.max / 1e6, recalls: load.latencies };
}

export interface StoreRowsOptions {
  /** The data folder of a store of `memories` memories built by `buildLog` (the corpus, 100 users). */
  readonly dataDir: string;
  readonly memories: number;
  readonly provider: EmbeddingProvider;
  /** Wall seconds of a full rebuild of this log measured earlier in the run (rebuildEveryIndex). */
  readonly fullRebuildSeconds: number;
  /** The same rebuild's wall and CPU seconds, when measured (the erasure's CPU row). */
  readonly fullRebuild?: Timing;
  readonly meta: Record<string, string | number | boolean>;
}

/** Event-loop delay during a rebuild under recall load, then the erasure of one user, on one engine. */
export async function storeRows(options: StoreRowsOptions): Promise<BenchRow[]> {
  const { memories, meta } = options;
  const env = testEnvironment(logStart + (memories + 60) * 1000, 'scale');
  // No lifecycle scheduler, as in the full rebuild and the recall rows: the ticks the clock made due are not the load measured.
  // As a server opens it (`lmem serve`): jieba's dictionary loaded at open, not at the first Chinese text mid-rebuild.
  const engine = await openTestEngine(options.dataDir, { embeddingProvider: options.provider, env, scheduler: false, warmTokenizer: true });
  const rows: BenchRow[] = [];
  try {
    const queries = distinctQueries(1_000);
    progress(`projections 6. event-loop delay: recall load alone, then a full rebuild of ${memories} memories under it`);
    // Warm first (the vector indexes' bytes read and checked, code compiled): the load alone is the steady state's baseline.
    for (const query of queries.slice(-20)) await engine.recall({ query, scope: { mode: 'global' }, topK: 5 });
    const alone = await maxDelayUnder(engine, queries, () => new Promise((resolve) => setTimeout(resolve, 5_000)));
    const names = engineProjections.map((p) => p.name);
    let rebuildSeconds = 0;
    const during = await maxDelayUnder(engine, queries.slice().reverse(), async () => {
      rebuildSeconds = (await timed(async () => {
        await rebuildEveryIndex(engine.indexes, names, 'bench: rebuild under recall load');
        await engine.runner.idle();
      })).wall;
    });
    const note =
      'longest event-loop pause (perf_hooks.monitorEventLoopDelay, 10 ms resolution), lower is better: ours = while every read model ' +
      'is rebuilt (rebuildEveryIndex: the SQLite projections and both vector indexes in one replay, retired tables dropped) beside a recall load (engine.recall one after another); ' +
      'raw = the same recall load alone for 5 s, after 20 warm-up recalls; the budget row compares ours with the issue\'s fixed 50 ms';
    rows.push(
      row(`event-loop max delay, rebuild + recall load (M=${memories})`, during.maxMs, alone.maxMs, 'ms', undefined, { better: 'lower', note }),
      row('event-loop max delay, rebuild + recall load vs 50 ms budget', during.maxMs, eventLoopBudgetMs, 'ms', 1, { better: 'lower' }),
    );
    Object.assign(meta, {
      rebuildUnderRecallSeconds: Math.round(rebuildSeconds * 100) / 100,
      recallsDuringRebuild: during.recalls.length,
      recallP95DuringRebuildMs: Math.round(quantile(during.recalls, 0.95) * 10) / 10,
      recallP95AloneMs: Math.round(quantile(alone.recalls, 0.95) * 10) / 10,
    });

    const fullRebuild = options.fullRebuild ?? { wall: options.fullRebuildSeconds, cpu: Number.NaN };
    rows.push(...(await erasureRows(engine, { memories, fullRebuild, meta })));
    return rows;
  } finally {
    await engine.close();
  }
}

/** These rows alone: a log of --memories memories (default 10,000), its full rebuild timed, then the rows. */
async function runScaleBench(): Promise<BenchReport> {
  const memories = intArg('memories', 10_000);
  const imports = Math.min(maxImportEntries, intArg('imports', 2_000));
  const writes = intArg('writes', 500);
  const started = process.hrtime.bigint();
  const loadAtStart = loadavg()[0] ?? 0;
  const dir = benchDir('lmem-bench-scale-');
  const meta: Record<string, string | number | boolean> = { memories, imports, writes };
  const report = (rows: BenchRow[]): BenchReport => ({
    title: 'LivingMemory scale benchmark (ratio = ours / baseline, in the same run)',
    meta: { ...machineMeta(dir.dir, loadAtStart), ...meta, totalSeconds: Math.round(Number(process.hrtime.bigint() - started) / 1e7) / 100 },
    rows,
  });
  try {
    const rows = await writeRows(dir.dir, (name) => dir.file(name), writes);
    rows.push(...(await importRows(dir.dir, (name) => dir.file(name), imports)));
    if (strArg('only') === 'writes') return report(rows);
    progress(`scale: building a log of ${memories} memories (not timed)`);
    const dataDir = join(dir.dir, 'store');
    const built = await buildLog(join(dataDir, 'livingmemory.db'), memories);
    built.db.close();
    const events = Number(built.head);
    meta.logEvents = events;
    const provider = createHashEmbeddingProvider();
    const fullRebuildTiming = await fullRebuild(dataDir, provider);
    const fullRebuildSeconds = fullRebuildTiming.wall;
    meta.fullRebuildSeconds = Math.round(fullRebuildSeconds * 100) / 100;
    const label = `full rebuild, ${engineProjections.length} SQLite projections + 2 vector indexes in one replay`;
    rows.push(...(await rebuildRows(dataDir, (name) => dir.file(name), { events, memories, documentRows: built.documentRows, ours: fullRebuildTiming, label })));
    rows.push(...(await storeRows({ dataDir, memories, provider, fullRebuildSeconds, fullRebuild: fullRebuildTiming, meta })));
    return report(rows);
  } finally {
    dir.remove();
  }
}

/** The engine's full rebuild of the store, timed: the SQLite projections in one replay, then both vector indexes. */
export async function fullRebuild(dataDir: string, provider: EmbeddingProvider): Promise<Timing> {
  // No lifecycle scheduler: at the test clock (2026) it ticked every day since the log's start (2025) in the
  // background, and those 365 decay ticks were timed as part of the rebuild (ADR 32, session 6).
  const engine = await openTestEngine(dataDir, { embeddingProvider: provider, scheduler: false });
  try {
    const names = engineProjections.map((p) => p.name);
    progress(`scale: full rebuild, ${names.length} projections and 2 vector indexes in one replay`);
    return (await timed(async () => {
      await rebuildEveryIndex(engine.indexes, names, 'bench: full rebuild');
      // Timed to the last retired table dropped: the drops run after the switches, in slices.
      await engine.runner.idle();
    }));
  } finally {
    await engine.close();
  }
}

reportWhenEntryPoint(import.meta.url, runScaleBench);
