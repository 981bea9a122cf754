/**
 * The approximate vector index (ADR 8, issue 17) on the memory vectors of a built store: the HNSW
 * index the vector stores search from `projections.approximateVectors.minVectors` vectors on,
 * beside the exact index (IndexFlatIP) over the same vectors, in the same run: recall@10 against
 * the exact 10 nearest (a hit counts when its cosine reaches the exact tenth's, so ties among
 * equal scores do not count as misses), latency p50/p95 alternating query by query, and the build.
 */
import { loadavg } from 'node:os';
import { dirname } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readSnapshot } from '../../src/projections/vectors/snapshot.js';
import { approximateVectorsSchema } from '../../src/engine/config.js';
import { approximateBuilt, approximateEfSearch, searchVectors } from '../../src/projections/vectors/approximate-index.js';
import { createFlatIndex } from '../../src/projections/vectors/flat-index.js';
import { createHashEmbeddingProvider } from '../../src/providers/embeddings/index.js';
import { distinctQueries } from './recall.bench.js';
import { reportWhenEntryPoint, row, type BenchReport, type BenchRow } from './report.js';
import { alternate, intArg, machineMeta, progress, quantile, timed } from './support.js';

const k = 10;

export async function approximateRows(
  snapshotPath: string,
  queries: readonly Float32Array[],
  efSearches: readonly number[] = [],
): Promise<{ rows: BenchRow[]; meta: Record<string, number> }> {
  const snapshot = readSnapshot(snapshotPath);
  if (!snapshot) throw new Error(`no vector snapshot at ${snapshotPath}`);
  const { ids } = snapshot.header;
  const exact = createFlatIndex(snapshot.header.dimension, { count: ids.length, ids: () => ids, bytes: () => snapshot.index });
  // The engine's default settings, but from the first vector on: the store here may be smaller than minVectors.
  const settings = { ...approximateVectorsSchema().parse({}), minVectors: 1 };
  const searcher = { search: (index: typeof exact, q: Float32Array, n: number) => searchVectors(index, q, n, settings) };
  progress(`approximate vectors: building HNSW${settings.m} over ${exact.size()} vectors`);
  exact.load();
  // The build runs on the approximate indexes' thread (searches are exact meanwhile): timed to its
  // end, with the event loop's longest pause meanwhile (before the thread, the build's whole time).
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const build = await timed(() => approximateBuilt(exact, settings));
  loop.disable();
  // The exact tenth cosine of each query, found before the timed runs.
  const tenths = queries.map((q) => exact.searchNow(q, k).at(-1)?.score ?? Number.NEGATIVE_INFINITY);
  const rows: BenchRow[] = [];
  // The default efSearch, then any other asked for, on the same build.
  for (const efSearch of efSearches.length > 0 ? efSearches : [settings.efSearch]) {
    await approximateEfSearch(exact, efSearch);
    let found = 0;
    let calls = 0;
    const latency = await alternate(
      queries.length,
      async (i) => {
        const hits = await searcher.search(exact, queries[i] as Float32Array, k);
        found += hits.filter((h) => h.score >= (tenths[i] as number) - 1e-6).length;
        calls += 1;
      },
      // The exact search waited for on this thread, as a raw faiss search would be.
      (i) => exact.searchNow(queries[i] as Float32Array, k),
    );
    const note =
      `ours = the approximate index (HNSW${settings.m}, faiss L2 over unit vectors) the vector store searches above ` +
      `projections.approximateVectors.minVectors (efSearch default ${settings.efSearch}); raw = the exact IndexFlatIP search over the same ${exact.size()} vectors; the recall row is ` +
      'not ours vs raw: the share of the exact 10 nearest found (a hit reaching the exact tenth cosine counts), target 0.95';
    const ef = efSearch === settings.efSearch ? '' : `, efSearch ${efSearch}`;
    rows.push(
      row(`approximate vector search recall@10 vs exact (n=${exact.size()}${ef})`, found / (calls * k), 1, 'share', 0.95, rows.length === 0 ? { note } : {}),
      row(`approximate vector search p50 (k=${k}${ef})`, quantile(latency.ours, 0.5), quantile(latency.raw, 0.5), 'ms', undefined, { better: 'lower' }),
      row(`approximate vector search p95 (k=${k}${ef})`, quantile(latency.ours, 0.95), quantile(latency.raw, 0.95), 'ms', undefined, { better: 'lower' }),
    );
  }
  return {
    rows,
    meta: {
      approximateBuildSeconds: Math.round(build.wall * 100) / 100,
      approximateBuildEventLoopMaxMs: Math.round(loop.max / 1e5) / 10,
      approximateVectors: exact.size(),
    },
  };
}

/**
 * The rows alone, on a snapshot kept from a larger run (a million vectors take an hour to build here):
 * `node dist/test/bench/approximate.bench.js --snapshot=FILE [--queries=N] [--ef-search=A,B,...]` (the
 * recall bench's queries; each efSearch on the same build).
 */
async function runApproximateBench(): Promise<BenchReport> {
  const path = process.argv.find((a) => a.startsWith('--snapshot='))?.slice('--snapshot='.length);
  if (path === undefined) throw new Error('--snapshot=FILE (a vector snapshot, e.g. a store\'s vectors/vectors-g1.snap) is required');
  const load = loadavg()[0] ?? 0;
  const queries = await createHashEmbeddingProvider().embed(distinctQueries(intArg('queries', 200)));
  const efSearches = (process.argv.find((a) => a.startsWith('--ef-search='))?.slice('--ef-search='.length) ?? '').split(',').filter(Boolean).map(Number);
  const { rows, meta } = await approximateRows(path, queries, efSearches);
  return { title: 'LivingMemory approximate vector search (HNSW vs exact, same vectors)', meta: { ...machineMeta(dirname(path), load), ...meta }, rows };
}

reportWhenEntryPoint(import.meta.url, runApproximateBench);
