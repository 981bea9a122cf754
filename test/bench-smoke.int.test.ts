import { describe, expect, it } from 'vitest';
import { runCoreBench } from './bench/core.bench.js';
import { runProjectionsBench } from './bench/projections.bench.js';

// `npm run bench` checks that each raw baseline writes the rows ours writes before it compares
// them; a read model that changes shape breaks that check, and only a run of the bench shows it
// (the documents vitals table did, unseen for three days). Small sizes: whether it runs, not how fast.
describe('npm run bench, at small sizes', () => {
  it('the core rows run, the raw documents rows equal the projection\'s', async () => {
    const report = await runCoreBench({ single: 50, events: 2_000, reps: 1 });
    expect(report.meta.documentsDigestMatches).toBe(true);
    expect(report.rows.map((r) => r.name)).toContain('documents replay vs raw inserts (N=2000)');
  });

  it('the projections and scale rows run beside their baselines', async () => {
    const report = await runProjectionsBench({ memories: 600, writes: 30, queries: 10, imports: 50 });
    const names = report.rows.map((r) => r.name).join('\n');
    for (const row of ['full rebuild', 'import vs raw batched', 'erasure', 'event-loop max delay']) expect(names).toContain(row);
    for (const r of report.rows) expect(Number.isFinite(r.ours), r.name).toBe(true);
  }, 300_000);
});
