import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/engine/config.js';
import { createMemoryEngine } from '../../src/engine/engine.js';
import { erasureTrail, killErase } from '../support/erase-crash.js';
import { filesUnder, lmemIn, markersIn } from '../support/erasure-scan.js';
import { faultSeed, seededRandom } from '../support/faults/kill.js';
import { faultClass } from '../support/faults/table.js';

// Issue 11's fault suite, erased-marker scan: a user's unique marker texts (in memories, key facts,
// and messages recorded through the hooks as a host calls them) are erased by an `lmem erase`
// SIGKILLed at a random time; the next `start` finishes it. Then every output a user makes
// afterwards (backup, JSON and CSV export, compliance export of everyone) is written beside the
// store, and the raw bytes of every file under the data dir and the output dir are searched:
// the markers must be in 0 files. LMEM_FAULT_ERASE_TRIALS sets the trials (default 2).
const trials = Number(process.env.LMEM_FAULT_ERASE_TRIALS ?? 2);
const markers = ['zqmaramemo', 'zqmarafact', 'zqmaramsg'];
const random = seededRandom(faultSeed + 1);
const roots: string[] = [];
const tally = faultClass('erased-marker scan');
const endings: string[] = [];
afterAll(() => {
  roots.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  tally.record(`erase ended by ${endings.join(', ')}; scanned db, WAL, snapshots, cache, backup, exports and a compliance export made after it; seed ${faultSeed}`);
});

async function seeded(root: string): Promise<string> {
  const dataDir = join(root, 'data');
  const engine = await createMemoryEngine(loadConfig({ overrides: { dataDir } }), { maintenance: false });
  for (let n = 0; n < 20; n += 1) {
    await engine.writeMemory({ text: `Mara keeps zqmaramemo${n} in the blue box`, userId: 'mara', keyFacts: [`zqmarafact${n}`] });
    await engine.writeMemory({ text: `Theo keeps zqtheo${n} in the red box`, userId: 'theo' });
  }
  for (let n = 0; n < 4; n += 1) {
    await engine.beforeLlmRequest({ sessionId: 'mara-chat', userId: 'mara', message: { content: `Remember zqmaramsg${n}, my locker number.` } });
    await engine.afterLlmResponse({ sessionId: 'mara-chat', userId: 'mara', message: { content: `Noted zqmaramsg${n}.` } });
  }
  await engine.close();
  return dataDir;
}

describe('erased markers after a killed erase (fault suite)', () => {
  for (let trial = 1; trial <= trials; trial += 1) {
    it(`trial ${trial}: an erase killed at a random time, finished by start; the markers are in 0 files`, () =>
      tally.trial(async () => {
        const root = mkdtempSync(join(tmpdir(), 'lmem-fault-markers-'));
        roots.push(root);
        const dataDir = await seeded(root);
        const lmem = (args: string[]) => lmemIn(dataDir, args);
        // The scan can find them: before the erase, the read models hold the memory texts and facts in
        // clear (messages are only in the log, sealed), and a compliance export of Mara holds all three.
        expect(Object.keys(markersIn(filesUnder(dataDir), markers)).sort()).toEqual(['zqmarafact', 'zqmaramemo']);
        const before = join(root, 'before');
        expect(lmem(['compliance-export', '--user', 'mara', '--out', before]).code).toBe(0);
        expect(Object.keys(markersIn(filesUnder(before), markers)).sort()).toEqual([...markers].sort());
        const delay = random() * 3000;
        const started = Date.now();
        const killed = await killErase(dataDir, ['--user', 'mara', '--reason', 'fault trial'], { watch: () => Date.now() - started >= delay });
        expect(['SIGKILL', '0']).toContain(killed.ended);
        // Killed before ErasureStarted reached the log, the erase was never recorded nor acknowledged:
        // there is nothing for start to finish, and the user runs it again, as after any unanswered command.
        const recorded = erasureTrail(dataDir).some((e) => e.type === 'ErasureStarted');
        endings.push(killed.ended === 'SIGKILL' ? `SIGKILL at ${Math.round(delay)} ms${recorded ? '' : ' (before it was recorded; run again)'}` : `exit ${killed.ended}`);
        if (!recorded) expect(lmem(['erase', '--user', 'mara', '--reason', 'fault trial']).code).toBe(0);
        const start = lmem(['start']);
        if (start.code !== 0) tally.counts.bricked += 1;
        expect(start.code, start.stderr).toBe(0);
        const out = join(root, 'out');
        mkdirSync(out);
        for (const args of [
          ['backup', join(out, 'backup.db')],
          ['export', '--out', join(out, 'export.json')],
          ['export', '--format', 'csv', '--out', join(out, 'export.csv')],
          ['compliance-export', '--all', '--out', join(out, 'compliance'), '--format', 'both'],
        ]) {
          const run = lmem(args);
          if (run.code !== 0) tally.counts.wrongExitCodes += 1;
          expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
        }
        const verified = lmem(['verify']);
        if (verified.code !== 0) tally.counts.wrongExitCodes += 1;
        expect(verified.code, verified.stdout).toBe(0);
        const found = markersIn([...filesUnder(dataDir), ...filesUnder(out)], markers);
        tally.counts.markerFiles += new Set(Object.values(found).flat()).size;
        expect(found).toEqual({});
        // Theo is untouched, and the exports did carry him (they are not empty files).
        expect(markersIn(filesUnder(out), ['zqtheo7'])['zqtheo7']?.length ?? 0).toBeGreaterThan(0);
      }),
    300_000);
  }
});
