import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runCoreBench } from './bench/core.bench.js';
import type { BenchReport } from './bench/report.js';

// `npm run bench` checks that each raw baseline writes the rows ours writes before it compares
// them; a read model that changes shape breaks that check, and only a run of the bench shows it
// (the documents vitals table did, unseen for three days). Small sizes: whether it runs, not how fast.
describe('npm run bench, at small sizes', () => {
  it('the core rows run, the raw documents rows equal the projection\'s', async () => {
    const report = await runCoreBench({ single: 50, events: 2_000, reps: 1 });
    expect(report.meta.documentsDigestMatches).toBe(true);
    expect(report.rows.map((r) => r.name)).toContain('documents replay vs raw inserts (N=2000)');
  });

  it('the projections and scale rows run beside their baselines', () => {
    // As `npm run bench` runs it, from the build (its worker threads load the built scripts).
    const args = ['dist/test/bench/projections.bench.js', '--json', '--memories=600', '--writes=30', '--queries=10', '--imports=50'];
    const run = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 280_000 });
    expect(run.status, run.stderr.slice(-2000)).toBe(0);
    const report = JSON.parse(run.stdout) as BenchReport;
    const names = report.rows.map((r) => r.name).join('\n');
    for (const row of ['full rebuild', 'import vs raw batched', 'erasure', 'event-loop max delay']) expect(names).toContain(row);
    for (const r of report.rows) expect(Number.isFinite(r.ours), r.name).toBe(true);
  }, 300_000);
});
