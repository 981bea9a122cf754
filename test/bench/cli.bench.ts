/**
 * CLI cold start: `lmem status` and `lmem search` each as a fresh process, beside a bare
 * `node -e 0` measured in the same rounds (hyperfine-like, with nothing outside the project):
 * each round runs the three in a rotating order, the figure is the median wall time.
 *
 *   node dist/test/bench/cli.bench.js [--json] [--memories=N] [--cli-runs=N] [--keep | --store=DIR]
 *
 * Standalone it builds a store of N memories (default 10,000); `npm run bench` runs it on the
 * 10k recall store of the projections benchmark.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildLog } from './projections.bench.js';
import { printReport, row, type BenchRow } from './report.js';
import { benchDir, intArg, isEntryPoint, median, progress } from './support.js';

const cli = fileURLToPath(new URL('../../src/interfaces/cli/main.cjs', import.meta.url));

function runOnce(args: readonly string[], dataDir: string): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', env: { PATH: process.env.PATH, LIVINGMEMORY_DATA_DIR: dataDir } });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr.trim()}`);
  return ms;
}

/** Rows for status and search cold start over the store in `dataDir` (made current by `lmem start` first). */
export function cliColdStartRows(dataDir: string, memories: number, runs = intArg('cli-runs', 15)): BenchRow[] {
  const commands = {
    node: ['-e', '0'],
    status: [cli, 'status'],
    search: [cli, 'search', 'trip to Paris next Monday'],
  };
  progress(`cli: cold start, ${runs} rounds over ${memories} memories`);
  runOnce([cli, 'start'], dataDir);
  const times: Record<keyof typeof commands, number[]> = { node: [], status: [], search: [] };
  const names = Object.keys(commands) as (keyof typeof commands)[];
  // Two rounds warm the page cache and are not kept.
  for (let round = -2; round < runs; round += 1) {
    for (let k = 0; k < names.length; k += 1) {
      const name = names[(k + Math.max(0, round)) % names.length] as keyof typeof commands;
      const ms = runOnce(commands[name], dataDir);
      if (round >= 0) times[name].push(ms);
    }
  }
  const base = median(times.node);
  const note =
    'wall time of one process, median of the rounds, lower is better; ours = `node dist/src/interfaces/cli/main.cjs status|search <query>` ' +
    `on a store of ${memories} memories (hash embeddings), raw = \`node -e 0\` in the same rounds`;
  return [
    row(`CLI cold start: lmem status (${memories / 1000}k)`, median(times.status), base, 'ms', 3, { better: 'lower', note }),
    row(`CLI cold start: lmem search (${memories / 1000}k)`, median(times.search), base, 'ms', 6, { better: 'lower' }),
  ];
}

if (isEntryPoint(import.meta.url)) {
  const memories = intArg('memories', 10_000);
  // --store=DIR times a store kept by an earlier run (--keep) instead of building one (minutes at 10k).
  const kept = process.argv.find((arg) => arg.startsWith('--store='))?.slice('--store='.length);
  const dir = kept ? { dir: kept, remove: () => undefined } : benchDir('lmem-bench-cli-');
  progress(kept ? `cli: timing the kept store ${kept}` : `cli: building a log of ${memories} memories (not timed)`);
  (kept ? Promise.resolve() : buildLog(join(dir.dir, 'livingmemory.db'), memories).then((built) => built.db.close()))
    .then(() => {
      printReport({ title: 'LivingMemory CLI cold start (ratio = ours / node -e 0)', meta: { node: process.version, memories }, rows: cliColdStartRows(dir.dir, memories) });
    })
    .catch((error: unknown) => {
      process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    })
    .finally(() => (process.argv.includes('--keep') ? progress(`cli: store kept in ${dir.dir}`) : dir.remove()));
}
