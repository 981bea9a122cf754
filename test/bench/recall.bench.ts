/**
 * Recall latency: p50/p95 of the whole `engine.recall` pipeline (query embedding, both routes with
 * their keyword and vector searches, neighbour expansion, fusion, weighting, MMR, atom policy,
 * injection, access batching) over an engine opened on a built store, hash embeddings, every query
 * distinct so the recall cache never answers. Beside it, in the same run and alternating query by
 * query, a raw baseline on the same data: one prepared FTS5 MATCH ... ORDER BY bm25 LIMIT 10 over a
 * plain copy of the FTS tokens plus one raw faiss-node IndexFlatIP search (k = 10) over the memory
 * vectors, query vector ready. Each scope's rows end with the mean CPU time per query of each side
 * (`process.cpuUsage`, every thread of the process), which other load on the machine moves far
 * less than the wall-clock quantiles.
 *
 * Alone (only the recall rows, on stores of --memories memories, default 10,000 and 100,000):
 *   node dist/test/bench/recall.bench.js [--json] [--memories=N] [--queries=N] [--store=DIR [--in-place]]
 * --store keeps each built and caught-up store in DIR and measures on a fresh copy of it, so a
 * later run spends its time on recall alone (the runs write access events into their copy);
 * --in-place measures on the kept store itself, where a copy does not fit the disk (1M: 25 GB).
 */
import { cpSync, existsSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { IndexFlatIP as FaissIndex } from 'faiss-node';
import { createHashEmbeddingProvider, type EmbeddingProvider } from '../../src/providers/embeddings/index.js';
import { openDatabase, type SqliteDatabase } from '../../src/events/log/sqlite-database.js';
import { ftsTableName } from '../../src/projections/fts.js';
import { ftsTokenizeOption, toFtsQuery } from '../../src/projections/text/tokenizer.js';
import { readSnapshot } from '../../src/projections/vectors/snapshot.js';
import { openTestEngine, testEnvironment } from '../support/engine.js';
import { logStart } from './log-events.js';
import { chunks, expectRows } from './core.bench.js';
import { searchQueries } from './corpus.js';
import { reportWhenEntryPoint, row, type BenchReport, type BenchRow } from './report.js';
import { alternate, benchDir, intArg, machineMeta, mean, progress, quantile, timed } from './support.js';
import { buildLog } from './projections.bench.js';
import { bytesUnder, peakRssMb } from './footprint.js';

const require = createRequire(import.meta.url);
const { IndexFlatIP } = require('faiss-node') as typeof import('faiss-node');

const k = 10;
const warmup = 20;

/** A plain FTS5 table holding the same tokens as the engine's FTS projection, in its own file. */
export function rawFtsCopy(db: SqliteDatabase, ftsTable: string, path: string, expected: number) {
  const raw = openDatabase(path);
  raw.exec(`CREATE VIRTUAL TABLE t USING fts5(tokens, tokenize = ${ftsTokenizeOption})`);
  const insert = raw.prepare('INSERT INTO t (rowid, tokens) VALUES (?, ?)');
  const rows = db.prepare<[], { rowid: number; tokens: string }>(`SELECT rowid, tokens FROM ${ftsTable}`).all();
  for (const batch of chunks(rows, 5_000)) raw.transaction(() => batch.forEach((r) => insert.run(r.rowid, r.tokens))).immediate();
  expectRows(raw, 't', expected, 'raw fts');
  const search = raw.prepare<[string, number], { rowid: number; score: number }>('SELECT rowid, bm25(t) AS score FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?');
  return { search: (match: string, limit: number) => search.all(match, limit), close: () => raw.close() };
}

/** The memory vectors of a snapshot file in a raw faiss-node index, with the snapshot's position -> id list. */
export function rawVectorIndex(snapshotPath: string, expected: number): { index: FaissIndex; ids: readonly string[] } {
  const snapshot = readSnapshot(snapshotPath);
  if (!snapshot) throw new Error(`no vector snapshot at ${snapshotPath}`);
  const index = IndexFlatIP.fromBuffer(snapshot.index);
  if (index.ntotal() !== expected || snapshot.header.ids.length !== expected) throw new Error(`raw faiss index holds ${index.ntotal()} vectors`);
  return { index, ids: snapshot.header.ids };
}

export interface RawBaseline {
  readonly fts: ReturnType<typeof rawFtsCopy>;
  readonly vectors: { index: FaissIndex; ids: readonly string[] };
}

/** `count` distinct queries in the corpus's vocabulary: a repeated one would be a cache hit. */
export function distinctQueries(count: number): string[] {
  const found = [...new Set(searchQueries(count * 20))];
  if (found.length < count) throw new Error(`only ${found.length} distinct queries for ${count}`);
  return found.slice(0, count);
}

type Engine = Awaited<ReturnType<typeof openTestEngine>>;

/** The raw side, copied from the engine's live FTS table (read through a second connection) and its flushed vector snapshot. */
function rawBaselineOf(engine: Engine, options: RecallBenchOptions): RawBaseline {
  const db = openDatabase(join(options.dataDir, 'livingmemory.db'));
  try {
    const ftsTable = engine.runner.liveTable('fts', ftsTableName);
    const fts = rawFtsCopy(db, ftsTable, options.rawPath ?? join(options.dataDir, 'fts-raw.db'), options.memories);
    const snapshot = join(options.dataDir, 'vectors', `vectors-g${engine.indexes.vectors.status().generation}.snap`);
    return { fts, vectors: rawVectorIndex(snapshot, options.memories) };
  } finally {
    db.close();
  }
}

interface RecallBenchOptions {
  /** The engine's data folder (its database and its vectors folder). */
  readonly dataDir: string;
  readonly memories: number;
  readonly queries: number;
  readonly provider: EmbeddingProvider;
  /** The raw side; built here from the engine's own indexes when not given. */
  readonly raw?: RawBaseline;
  /** A fresh file for the raw FTS copy, when it is built here. */
  readonly rawPath?: string;
  /** Whether the first row carries the note on what is measured (once per report). */
  readonly note?: boolean;
  /** Figures for the report's header (the approximate indexes' build time). */
  readonly meta?: Map<string, number>;
}

/** p50 and p95 rows of recall latency, global and session scope, beside the raw baseline. */
export async function recallRows(options: RecallBenchOptions): Promise<BenchRow[]> {
  const { memories, provider } = options;
  // The clock stands just after the last memory: atoms expire, and a memory whose atoms all have is not recalled.
  const env = testEnvironment(logStart + (memories + 60) * 1000, 'recall');
  // No lifecycle scheduler: the clock jumps past the log, and the decay ticks it made due ran beside
  // the recalls (at 1M memories one tick changed 374k atoms' states while they were timed).
  const engine = await openTestEngine(options.dataDir, { embeddingProvider: provider, env, scheduler: false });
  const rows: BenchRow[] = [];
  let built: RawBaseline | undefined;
  try {
    await engine.indexes.vectors.flush();
    const raw = options.raw ?? (built = rawBaselineOf(engine, options));
    if (engine.documents.count() !== memories) throw new Error(`the recall engine holds ${engine.documents.count()} memories, expected ${memories}`);
    // From projections.approximateVectors.minVectors on, a process's searches go through HNSW indexes
    // it builds after its first searches: built before the timed recalls, so those are what it serves then.
    const started = performance.now();
    const approximate = await Promise.all([engine.indexes.vectors.approximateReady(), engine.indexes.graphVectors.approximateReady()]);
    if (approximate.some(Boolean)) {
      const seconds = Math.round(performance.now() - started) / 1000;
      options.meta?.set(`approximateBuildSeconds-${memories}`, seconds);
      progress(`  recall: approximate vector indexes (memories, graph entries: ${approximate}) built in ${seconds.toFixed(1)} s`);
    }
    const scopes = [
      { name: 'global', scope: (_: number) => ({ mode: 'global' as const }) },
      { name: 'session', scope: (i: number) => ({ mode: 'session' as const, sessionId: `session-${i % 400}` }) },
    ];
    // Every query of every scope distinct, warm-ups included.
    const all = distinctQueries(scopes.length * (options.queries + warmup));
    for (const [s, { name, scope }] of scopes.entries()) {
      const queries = all.slice(s * (options.queries + warmup), (s + 1) * (options.queries + warmup));
      const vectors = (await provider.embed(queries)).map((v) => Array.from(v));
      const matches = queries.map((q) => toFtsQuery(q) ?? '"-"');
      progress(`  recall, ${name} scope: ${options.queries} queries over ${memories} memories`);
      let ours = 0;
      let theirs = 0;
      let cacheHits = 0;
      let empty = 0;
      const latency = await alternate(
        options.queries,
        async () => {
          const n = ours++;
          const answer = await engine.recall({ query: queries[n] as string, scope: scope(n), topK: 5 });
          if (answer.cacheHit) cacheHits += 1;
          if (answer.memories.length === 0) empty += 1;
        },
        () => {
          const n = theirs++;
          raw.fts.search(matches[n] as string, k);
          raw.vectors.index.search(vectors[n] as number[], k);
        },
        warmup,
      );
      if (cacheHits > 0) throw new Error(`${cacheHits} recalls were served from the cache`);
      const note =
        name === 'global' && options.note !== false
          ? 'latency, lower is better; ours = engine.recall (topK 5, hash embeddings, distinct queries so the cache never answers): ' +
            'query embedding, BM25 + FAISS over memories, trigram FTS + FAISS over graph entries, neighbour expansion, fusion, MMR, ' +
            'atom policy, injection, access batching; raw = one FTS5 MATCH ... ORDER BY bm25 LIMIT 10 plus one raw faiss IndexFlatIP ' +
            'search (k = 10) on the same data, query vector and MATCH string ready'
          : undefined;
      rows.push(
        row(`recall p50, ${name} scope (M=${memories})`, quantile(latency.ours, 0.5), quantile(latency.raw, 0.5), 'ms', undefined, {
          better: 'lower', ...(note === undefined ? {} : { note }),
        }),
        row(`recall p95, ${name} scope (M=${memories})`, quantile(latency.ours, 0.95), quantile(latency.raw, 0.95), 'ms', undefined, { better: 'lower' }),
        // CPU is what a recall costs whatever else the machine runs; its wall-clock ratios swing with the load (ADR 21).
        row(`recall CPU per query, ${name} scope (M=${memories})`, mean(latency.cpu.ours), mean(latency.cpu.raw), 'ms', undefined, { better: 'lower' }),
      );
      if (empty === options.queries + warmup) throw new Error(`every ${name} recall came back empty`);
    }
    // The engine's process after its recalls (the raw baseline's FTS copy and FAISS index held too).
    options.meta?.set(`rssAfterRecallsMiB-${memories}`, Math.round(process.memoryUsage().rss / 2 ** 20));
    return rows;
  } finally {
    built?.fts.close();
    await engine.close();
  }
}

/**
 * A store of `memories` corpus memories with every read model caught up, in `dir` (kept there when
 * `ready` says so; a log built by a run that stopped before its catch-up is kept too). The catch-up
 * is the engine's first open of the log: a replay from empty into every read model, timed for the report.
 */
async function builtStore(dir: string, memories: number, meta: Map<string, number>): Promise<void> {
  const ready = join(dir, 'ready');
  const logged = join(dir, 'logged');
  if (existsSync(ready)) return;
  if (!existsSync(logged)) {
    progress(`recall: building a log of ${memories} memories (not timed)`);
    (await buildLog(join(dir, 'livingmemory.db'), memories)).db.close();
    writeFileSync(logged, `${memories}\n`);
  }
  progress('recall: catching the read models up (a replay from empty, its migration backup included)');
  const catchUp = await timed(async () => {
    const engine = await openTestEngine(dir);
    await engine.indexes.vectors.flush();
    await engine.close();
  });
  meta.set(`catchUpSeconds-${memories}`, Math.round(catchUp.wall));
  meta.set(`catchUpCpuSeconds-${memories}`, Math.round(catchUp.cpu));
  writeFileSync(ready, `${memories}\n`);
}

/** The recall rows alone, at each size. */
export async function runRecallBench(): Promise<BenchReport> {
  const sizes = process.argv.some((a) => a.startsWith('--memories')) ? [intArg('memories', 10_000)] : [10_000, 100_000];
  const queries = intArg('queries', 200);
  const storeArg = process.argv.find((a) => a.startsWith('--store='))?.slice('--store='.length);
  const inPlace = process.argv.includes('--in-place');
  const loadAtStart = loadavg()[0] ?? 0;
  const dir = benchDir('lmem-bench-recall-');
  const provider = createHashEmbeddingProvider();
  const rows: BenchRow[] = [];
  const meta = new Map<string, number>();
  try {
    for (const [i, memories] of sizes.entries()) {
      const kept = join(storeArg ?? dir.dir, `store-${memories}`);
      await builtStore(kept, memories, meta);
      meta.set(`storeMiB-${memories}`, Math.round(bytesUnder(kept) / 2 ** 20));
      // A kept store is copied, so every run starts from it; `--in-place` (a 1M store: 25 GB) uses it as it is.
      const copied = storeArg !== undefined && !inPlace;
      const dataDir = copied ? join(dir.dir, `run-${memories}`) : kept;
      if (copied) cpSync(kept, dataDir, { recursive: true });
      rows.push(...(await recallRows({ dataDir, memories, queries, provider, rawPath: dir.file('fts-raw'), note: i === 0, meta })));
    }
    // The process's peak: the read models' catch-up of a built log, then the recall engine beside the raw copies.
    meta.set('peakRssMiB', peakRssMb());
    return { title: 'LivingMemory recall latency (ratio = ours / raw)', meta: { ...machineMeta(dir.dir, loadAtStart), queriesPerScope: queries, ...Object.fromEntries(meta) }, rows };
  } finally {
    dir.remove();
  }
}

reportWhenEntryPoint(import.meta.url, runRecallBench);
