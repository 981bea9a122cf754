import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { documentsProjection } from '../src/projections/documents.js';

// Runs the compiled CLI as a user would; `npm test` builds dist/ before the suite starts.
const cli = join(process.cwd(), 'dist/src/interfaces/cli/main.cjs');
const dataDir = mkdtempSync(join(tmpdir(), 'lmem-cli-'));
const lmem = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const result = spawnSync(process.execPath, [cli, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, LIVINGMEMORY_DATA_DIR: dataDir, ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};
const json = (args: string[]) => JSON.parse(lmem([...args, '--json']).stdout) as Record<string, unknown>;

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('lmem', () => {
  it('adds, lists events, forgets and reports status', () => {
    const added = json(['add', 'Bob is allergic to peanuts', '--importance', '0.9', '--session', 's1', '--topic', 'health']);
    // Position 1 is the embedding provider's fingerprint, recorded when the store first opened.
    expect(added.position).toBeGreaterThanOrEqual(2);
    const memoryId = added.memoryId as string;
    expect(lmem(['forget', memoryId, '--reason', 'asked']).stdout).toContain(`forgot ${memoryId}`);
    const events = json(['events', '--stream', `memory-${memoryId}`]) as unknown as { type: string }[];
    expect(events.map((e) => e.type).filter((t) => t.startsWith('Memory'))).toEqual(['MemoryWritten', 'MemoryForgotten']);
    const head = (events as unknown as { globalPosition: number }[]).at(-1)?.globalPosition;
    const status = json(['status']);
    expect(status).toMatchObject({ headPosition: head, memories: { active: 0, all: 1 }, projections: expect.arrayContaining([expect.objectContaining({ name: 'documents', checkpoint: head })]) });
    expect(lmem(['status']).stdout).toMatch(new RegExp(`log head: ${head}[\\s\\S]*documents\\s+${documentsProjection.version}\\s+1\\s+${head}\\s+0`));
  });

  it('rebuilds a projection into a new generation', () => {
    const rebuilt = json(['rebuild', 'documents']);
    expect(rebuilt).toMatchObject({ projection: 'documents', generation: 2 });
    expect(lmem(['start']).stdout).toContain('projections caught up');
  });

  it('gives clear errors for bad input, with exit code 2', () => {
    const bad = lmem(['add', 'x', '--importance', '7']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid importance/);
    expect(json(['add', 'x', '--importance', 'high'])).toMatchObject({ error: { kind: 'ValidationError' } });
    expect(lmem(['frobnicate']).stderr).toMatch(/unknown command 'frobnicate'/);
    expect(lmem(['rebuild', 'nope']).stderr).toMatch(/unknown projection nope/);
    expect(lmem(['forget', 'no-such-memory']).stderr).toMatch(/does not exist/);
    const config = lmem(['status'], { LIVINGMEMORY_SQLITE_SYNCHRONOUS: 'SOMETIMES' });
    expect(config.code).toBe(2);
    expect(config.stderr).toMatch(/sqlite\.synchronous \(from environment\)/);
  });

  it('takes the data location from --data-dir over the environment', () => {
    const other = mkdtempSync(join(tmpdir(), 'lmem-cli-other-'));
    try {
      expect(json(['status', '--data-dir', other])).toMatchObject({ headPosition: 1, memories: { all: 0 } });
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
