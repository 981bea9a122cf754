import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 11, case 3, as the issue reproduced it: truncate vectors/vectors-g1.snap, then start, verify, rebuild-index.
const cli = join(process.cwd(), 'dist/src/interfaces/cli/main.cjs');
const dataDir = mkdtempSync(join(tmpdir(), 'lmem-heal-cli-'));
const vectorsDir = join(dataDir, 'vectors');
const lmem = (args: string[]) => {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, LIVINGMEMORY_DATA_DIR: dataDir } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};
const liveSnapshot = (name: string): string => {
  const found = readdirSync(vectorsDir).filter((f) => new RegExp(`^${name}-g\\d+\\.snap$`).test(f));
  expect(found).toHaveLength(1);
  return join(vectorsDir, found[0] as string);
};

beforeAll(() => {
  for (const text of ['Ann drinks green tea in Paris', 'Bob likes coffee with Carol', 'Dan walks his dog at noon']) expect(lmem(['add', text]).code).toBe(0);
}, 30_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('a damaged FAISS snapshot is set aside and rebuilt on open', () => {
  it('start, verify and rebuild-index all work after the memory snapshot is truncated', () => {
    for (const command of ['start', 'verify', 'rebuild-index']) {
      truncateSync(liveSnapshot('vectors'), 100);
      const run = lmem([command]);
      expect(run.code, `${command}: ${run.stderr}${run.stdout}`).toBe(0);
    }
    const status = lmem(['status']);
    expect(status.stdout).toMatch(/snapshot set aside: vectors-g\d+\.snap -> vectors-g\d+\.snap\.damaged-1 at \d{4}-\d\d-\d\dT[\d:.]+Z, rebuilt from the log: .*truncated/);
    expect(status.stdout).toMatch(/vectors: 3 indexed, 0 pending/);
    const json = JSON.parse(lmem(['status', '--json']).stdout) as { vectors: { setAside: { reason: string }[] } };
    expect(json.vectors.setAside.length).toBeGreaterThanOrEqual(3);
    expect(readdirSync(vectorsDir).filter((f) => f.includes('.damaged-')).length).toBeGreaterThanOrEqual(3);
    const search = lmem(['search', 'green tea', '--json']);
    expect((JSON.parse(search.stdout) as { memories: { text: string }[] }).memories[0]?.text).toMatch(/green tea/);
  }, 120_000);

  it('heals a graph entry snapshot with one byte changed the same way', () => {
    const path = liveSnapshot('graph_vectors');
    const bytes = readFileSync(path);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0x01;
    writeFileSync(path, bytes);
    const verified = lmem(['verify']);
    expect(verified.code, verified.stdout).toBe(0);
    expect(lmem(['status']).stdout).toMatch(/snapshot set aside: graph_vectors-g\d+\.snap -> graph_vectors-g\d+\.snap\.damaged-1 .*checksum mismatch/);
  }, 60_000);
});
