import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliIn } from '../support/cli.js';
import { faultSeed, runUntilKilled, seededRandom } from '../support/faults/kill.js';
import { checkAfterCrash, storedMemories } from '../support/faults/store.js';
import { recordFaultRow } from '../support/faults/table.js';

// Issue 11's fault suite: a real writer process (the engine as a host opens it) is SIGKILLed at a
// random point, again and again on the same store. After each kill the store must open, `lmem
// verify` must exit 0 and every write, update and forget the writer acknowledged must be there.
// LMEM_FAULT_TRIALS sets the number of trials (default 30); LMEM_FAULT_SEED replays a run.
const trials = Number(process.env.LMEM_FAULT_TRIALS ?? 30);
const writer = join(process.cwd(), 'test/support/faults/writer-child.mjs');
const dataDir = mkdtempSync(join(tmpdir(), 'lmem-fault-writer-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const acknowledged = (stdout: string, word: string): string[] =>
  [...stdout.matchAll(new RegExp(`^${word} (\\S+)$`, 'gm'))].map((m) => m[1] as string);

interface Finding {
  readonly trial: number;
  readonly problem: string;
}

describe('SIGKILL of a writer at random points (fault suite)', () => {
  it(`loses no acknowledged write in ${trials} trials, and verify exits 0 after each`, async () => {
    const random = seededRandom(faultSeed);
    const findings: Finding[] = [];
    const counts = { acked: 0, lost: 0, bricked: 0, wrongExit: 0, duringOpen: 0 };
    const everAcked = new Set<string>();
    try {
      for (let trial = 1; trial <= trials; trial += 1) {
        // One kill in eight lands while the engine opens (catch-up, snapshot load); the rest after
        // 0 to 9 acknowledged writes plus up to 40 ms, so inside a write as often as between two.
        const duringOpen = random() < 0.125;
        const afterAcks = Math.floor(random() * 10);
        const extraMs = random() * 40;
        const openMs = 50 + random() * 800;
        const started = Date.now();
        let reachedAt: number | undefined;
        const killed = await runUntilKilled([writer, dataDir, String(trial)], {
          env: { LIVINGMEMORY_DATA_DIR: dataDir },
          when: (stdout) => {
            if (duringOpen) return Date.now() - started >= openMs || stdout.includes('open\n');
            if (reachedAt === undefined && acknowledged(stdout, 'ack').length >= afterAcks && stdout.includes('open\n')) reachedAt = Date.now();
            return reachedAt !== undefined && Date.now() - reachedAt >= extraMs;
          },
        });
        if (duringOpen && !killed.stdout.includes('open\n')) counts.duringOpen += 1;
        const acks = acknowledged(killed.stdout, 'ack');
        acks.forEach((id) => everAcked.add(id));
        counts.acked += acks.length;
        const problems: string[] = [];
        if (killed.ended !== 'SIGKILL') problems.push(`the writer ended by itself (${killed.ended}): ${killed.stderr.trim().slice(0, 300)}`);
        const check = checkAfterCrash(dataDir);
        if (check.wrongExit !== null) (counts.wrongExit += 1, problems.push(check.detail));
        if (check.bricked) counts.bricked += 1;
        if (!check.bricked) {
          const { logged, served } = storedMemories(dataDir);
          const missing = acks.filter((id) => !logged.has(id) || !served.has(id));
          const notUpdated = acknowledged(killed.stdout, 'updated').filter((id) => served.get(id)?.importance !== 0.9);
          const notForgotten = acknowledged(killed.stdout, 'forgot').filter((id) => served.get(id)?.status !== 'forgotten');
          counts.lost += missing.length + notUpdated.length + notForgotten.length;
          if (missing.length + notUpdated.length + notForgotten.length > 0) {
            problems.push(`lost: writes ${missing.join(',')}; updates ${notUpdated.join(',')}; forgets ${notForgotten.join(',')}`);
          }
        }
        if (problems.length > 0) findings.push({ trial, problem: problems.join('; ') });
      }
      // The user's view at the end: every memory ever acknowledged is listed by the CLI.
      const listed = cliIn(dataDir).json<{ memories: { memoryId: string }[] }>(['list', '--status', 'all', '--limit', '0']);
      const ids = new Set(listed.memories.map((m) => m.memoryId));
      const unlisted = [...everAcked].filter((id) => !ids.has(id));
      if (unlisted.length > 0) findings.push({ trial: 0, problem: `not listed by lmem list: ${unlisted.join(',')}` });
    } finally {
      recordFaultRow({
        class: 'SIGKILL writer',
        trials,
        failures: findings.length,
        lost: counts.lost,
        bricked: counts.bricked,
        wrongExitCodes: counts.wrongExit,
        markerFiles: 0,
        note: `${counts.acked} acknowledged writes, ${counts.duringOpen} kills while opening, seed ${faultSeed}`,
      });
    }
    process.stderr.write(`sigkill writer: ${trials} trials, ${counts.acked} acknowledged writes, seed ${faultSeed}\n`);
    expect(findings).toEqual([]);
  }, trials * 60_000);
});
