import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/engine/config.js';
import { createMemoryEngine } from '../../src/engine/engine.js';
import { erasureTrail, killErase, logHas } from '../support/erase-crash.js';
import { filesUnder, lmemIn, markersIn } from '../support/erasure-scan.js';
import { faultClass } from '../support/faults/table.js';

// Issue 11's fault suite, erasure part: a real `lmem erase` SIGKILLed at every step of the process.
const dirs: string[] = [];
const tally = faultClass('SIGKILL erase');
afterAll(() => {
  dirs.forEach((dir) => [dir, `${dir}-backups`].forEach((d) => rmSync(d, { recursive: true, force: true })));
  tally.record('at each step boundary, and once watched from outside');
});

const words = ['violin', 'Osaka', 'green tea', 'jazz', '咖啡'];

/** A store where Tina's texts share words (and one whole text) with other users' memories. */
async function seeded(memories: number): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lmem-erase-crash-'));
  dirs.push(dataDir);
  // The system clock: the CLI recalls at the time it runs, and an old test clock would age every memory.
  const engine = await createMemoryEngine(loadConfig({ overrides: { dataDir } }), { maintenance: false });
  for (let n = 0; n < memories; n += 1) {
    const word = words[n % words.length] as string;
    await engine.writeMemory({ text: `Tina plays ${word} with zqtina${n} on Sundays`, userId: 'tina', keyFacts: [`zqtinafact${n}`] });
    await engine.writeMemory({ text: `Omar plays ${word} with zqomar${n} on Sundays`, userId: 'omar' });
  }
  await engine.writeMemory({ text: 'The choir meets on Fridays', userId: 'tina' });
  await engine.writeMemory({ text: 'The choir meets on Fridays', userId: 'omar' });
  await engine.close();
  return dataDir;
}

/** After the kill: the first command served finds nothing of Tina, verify is clean, the trail is complete, no file holds her marker. */
function expectFinished(dataDir: string): void {
  const lmem = (args: string[]) => lmemIn(dataDir, args);
  const first = lmem(['search', 'zqtina1', '--json']);
  if (first.code !== 0) tally.counts.bricked += 1;
  expect(first.code).toBe(0);
  const served = (JSON.parse(first.stdout) as { memories: { text: string }[] }).memories.map((m) => m.text);
  expect(served.length).toBeGreaterThan(0);
  expect(served.filter((text) => text.includes('Tina') || text.includes('[erased]'))).toEqual([]);
  const verified = lmem(['verify', '--json']);
  if (verified.code !== 0) tally.counts.wrongExitCodes += 1;
  expect(verified.stdout).toMatch(/"ok": ?true/);
  expect(verified.code).toBe(0);
  expect(erasureTrail(dataDir)).toEqual([
    { type: 'ErasureStarted' },
    { type: 'SubjectErased' },
    { type: 'ErasureStepCompleted', step: 'erase-read-models' },
    { type: 'ErasureStepCompleted', step: 'scrub-store-file' },
    { type: 'ErasureStepCompleted', step: 'shred-managed-backups' },
    { type: 'ErasureFinished' },
  ]);
  // The managed backups beside the data dir (the one taken before the erase among them) are shredded too (ADR 29).
  const markers = markersIn([...filesUnder(dataDir), ...filesUnder(`${dataDir}-backups`)], ['zqtina']);
  tally.counts.markerFiles += Object.values(markers).flat().length;
  expect(markers).toEqual({});
  const omar = JSON.parse(lmem(['search', 'zqomar1', '--json']).stdout) as { memories: { text: string }[] };
  expect(omar.memories.map((m) => m.text)).toContain('Omar plays Osaka with zqomar1 on Sundays');
}

// Every boundary of the process: after a step's record, and after a step's work but before its record.
const pausePoints = [
  'started', 'destroy-key', 'erase-read-models:midway', 'erase-read-models:unmarked', 'erase-read-models',
  'scrub-store-file:unmarked', 'scrub-store-file', 'shred-managed-backups:unmarked', 'shred-managed-backups',
];

describe('an erasure killed at any step is finished on the next open, before any read', () => {
  for (const point of pausePoints) {
    it(`SIGKILL at ${point}`, () => tally.trial(async () => {
      const dataDir = await seeded(6);
      const killed = await killErase(dataDir, ['--user', 'tina', '--reason', 'asked'], { pauseAt: point });
      expect(killed).toEqual({ ended: 'SIGKILL', stderr: `erasure paused at ${point}\n` });
      expectFinished(dataDir);
    }), 180_000);
  }

  it('SIGKILL as soon as SubjectErased is in the log (watched from outside, no pause hook)', () => tally.trial(async () => {
    const dataDir = await seeded(150);
    const watch = logHas(dataDir, 'SubjectErased');
    try {
      const killed = await killErase(dataDir, ['--user', 'tina', '--reason', 'asked'], { watch: watch.check });
      expect(killed.ended).toBe('SIGKILL');
    } finally {
      watch.close();
    }
    expect(erasureTrail(dataDir).map((e) => e.type)).not.toContain('ErasureFinished');
    expectFinished(dataDir);
  }), 180_000);
});
