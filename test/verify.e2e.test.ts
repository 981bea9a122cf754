import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { flipOneByteOfEvent } from './support/faults/tamper.js';

// Runs the compiled CLI as a user would; `npm test` builds dist/ before the suite starts.
const cli = join(process.cwd(), 'dist/src/interfaces/cli/main.cjs');
const dataDir = mkdtempSync(join(tmpdir(), 'lmem-verify-'));
const dbFile = join(dataDir, 'livingmemory.db');
const lmem = (args: string[]) => {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, LIVINGMEMORY_DATA_DIR: dataDir } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('lmem verify', () => {
  it('passes a sound store, then finds one byte changed in an event at its position', () => {
    // The text is sealed in the log (ADR 19); the session id is stored in clear, in each event of the write.
    const added = JSON.parse(lmem(['add', 'The door code is 1234', '--session', 'tamper-marker-x', '--json']).stdout) as { position: number };
    lmem(['add', 'Bob rides his bike']);
    const sound = lmem(['verify']);
    expect(sound.code, sound.stderr).toBe(0);
    expect(sound.stdout).toMatch(/log: ok, \d+ events, head hash \d+:[0-9a-f]{64}/);
    expect(sound.stdout).toMatch(/verify: ok$/m);

    flipOneByteOfEvent(dbFile, 'tamper-marker-x', added.position);
    const tampered = lmem(['verify']);
    expect(tampered.code, tampered.stderr).toBe(3);
    expect(tampered.stdout).toContain(`log: BROKEN at position ${added.position} (hash-mismatch)`);
    const report = JSON.parse(lmem(['verify', '--json']).stdout) as { chain: unknown; projections: { status: string }[] };
    expect(report).toMatchObject({ ok: false, chain: { checked: added.position - 1, firstBreak: { position: added.position, kind: 'hash-mismatch' } } });
    // The projection that applied the event still holds it as written; a replay of the changed log does not.
    expect(report.projections.filter((p) => p.status === 'mismatch')).not.toHaveLength(0);
  });

  it('refuses a malformed anchor with exit code 2', () => {
    const bad = lmem(['verify', '--anchor', '12:nothex']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/anchor/);
  });
});
