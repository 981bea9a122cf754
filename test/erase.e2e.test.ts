import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The compiled CLI, as a user runs it; `npm test` builds dist/ first.
const cli = join(process.cwd(), 'dist/src/interfaces/cli/main.js');
// Outputs go beside the store: nothing may be written inside the data dir (ADR 24).
const root = mkdtempSync(join(tmpdir(), 'lmem-erase-'));
const dataDir = join(root, 'store');
const lmem = (args: string[]) => {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, LIVINGMEMORY_DATA_DIR: dataDir } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};
const json = (args: string[]) => JSON.parse(lmem([...args, '--json']).stdout) as Record<string, unknown>;

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('lmem erase and backup', () => {
  it('erases a user: counts, the event, no plaintext in the file or a later backup, others untouched', () => {
    const alice = json(['add', 'Alice hides zqalicesecret under the stairs', '--user', 'alice']);
    json(['add', 'Bob keeps zqbobnote in the drawer', '--user', 'bob']);
    expect(lmem(['erase', '--reason', 'asked']).code).toBe(2);
    expect(lmem(['erase', '--user', 'alice']).stderr).toMatch(/reason/);

    const receipt = json(['erase', '--user', 'alice', '--reason', 'right to be forgotten']);
    expect(receipt).toMatchObject({ subject: { kind: 'user', id: 'alice' }, counts: { memories: 1 }, walTruncated: true });
    const backupPath = join(root, 'backup.db');
    expect(json(['backup', backupPath])).toMatchObject({ path: backupPath });
    for (const file of [join(dataDir, 'livingmemory.db'), backupPath]) {
      const bytes = readFileSync(file);
      expect(bytes.includes('zqalicesecret')).toBe(false);
    }
    const events = json(['events', '--tail', '50']) as unknown as { type: string; data: Record<string, unknown> }[];
    expect(events.find((e) => e.type === 'SubjectErased')?.data).toMatchObject({ reason: 'right to be forgotten', counts: { memories: 1 } });
    expect(events.find((e) => e.data['memoryId'] === alice.memoryId && e.type === 'MemoryWritten')?.data).toMatchObject({ text: '[erased]' });
    // Run again (as after a crash between the key's deletion and the rebuild): nothing left to shred, the rebuild runs.
    expect(json(['erase', '--user', 'alice', '--reason', 'again'])).toMatchObject({ keyIds: [], counts: { memories: 0, events: 0 } });
    const found = json(['search', 'zqbobnote', '--scope', 'user', '--user', 'bob']) as { memories: { text: string }[] };
    expect(found.memories.map((m) => m.text)).toEqual(['Bob keeps zqbobnote in the drawer']);
  });
});
