/**
 * `npm run bench`: the core, projections, EventStoreDB, doors and lifecycle benchmarks, in one process, printed as
 * one table with a section each, or with `--json` as one JSON object `{ title, meta, sections: { core,
 * projections, doors, eventstoredb, lifecycle }, allTargetsPass }` on stdout (progress goes to stderr).
 *
 *   node dist/test/bench/main.js [--json] [--reps=N] [--single=N] [--events=N]   (core)
 *                                [--writes=N] [--memories=N] [--queries=N]        (projections)
 *                                [--imports=N]                                     (projections: scale rows)
 *                                [--esdb-memories=N]                              (EventStoreDB, ADR 27)
 *                                [--tick-memories=N] [--consolidation-memories=N] (lifecycle, ADR 29)
 *
 * --memories=N sets the size of the rebuilt log and of the searched indexes (default 100,000), the
 * figure that decides how long the run takes; --writes=N the memories written through the engine
 * (default 2,000); --imports=N the memories of the import row (default 2,000, at most 10,000).
 */
import { cpus, loadavg } from 'node:os';
import { runCoreBench } from './core.bench.js';
import { runEventStoreBench } from './eventstore.bench.js';
import { runDoorsBench } from './doors.bench.js';
import { runProjectionsBench } from './projections.bench.js';
import { runLifecycleBench } from './lifecycle.bench.js';
import { printCombinedReport } from './report.js';
import { progress } from './support.js';

async function main(): Promise<void> {
  const started = process.hrtime.bigint();
  const loadAtStart = loadavg();
  progress('core benchmark');
  const core = await runCoreBench();
  progress('projections benchmark');
  const projections = await runProjectionsBench();
  progress('EventStoreDB benchmark');
  const eventstoredb = await runEventStoreBench();
  progress('doors benchmark');
  const doors = await runDoorsBench();
  progress('lifecycle benchmark');
  const lifecycle = await runLifecycleBench();
  const load = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(' ');
  printCombinedReport({
    title: 'LivingMemory benchmarks (ratio = ours / raw, in the same run)',
    meta: {
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      cpus: `${cpus().length} x ${cpus()[0]?.model ?? '?'}`,
      loadAverageAtStart: load(loadAtStart),
      loadAverageAtEnd: load(loadavg()),
      totalSeconds: Math.round(Number(process.hrtime.bigint() - started) / 1e7) / 100,
    },
    sections: { core, projections, doors, eventstoredb, lifecycle },
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
