import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// Runs the compiled CLI as a user would; `npm test` builds dist/ before the suite starts.
const cli = join(process.cwd(), 'dist/src/interfaces/cli/main.cjs');
// Outputs go beside the store: nothing may be written inside the data dir (ADR 24).
const root = mkdtempSync(join(tmpdir(), 'lmem-replay-cli-'));
const dataDir = join(root, 'store');
const lmem = (args: string[]) => {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, LIVINGMEMORY_DATA_DIR: dataDir } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};
const json = <T = Record<string, unknown>>(args: string[]) => JSON.parse(lmem([...args, '--json']).stdout) as T;

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('lmem history, recall --at, diff, import, export', () => {
  it('shows a memory history, recalls as of a past position, and diffs', () => {
    const { memoryId, position } = json<{ memoryId: string; position: number }>(['add', 'Alice likes green tea', '--session', 's1']);
    lmem(['forget', memoryId, '--reason', 'asked']);
    const history = json<{ kind: string; entries: { type: string; description: string }[] }>(['history', memoryId]);
    expect(history.kind).toBe('memory');
    expect(history.entries.map((e) => e.type)).toEqual(expect.arrayContaining(['MemoryWritten', 'MemoryForgotten']));
    expect(history.entries.at(-1)?.description).toBe('forgotten: asked');
    const past = json<{ position: number; memories: { memoryId: string }[] }>(['recall', '--at', String(position), 'green tea']);
    expect(past.memories.map((m) => m.memoryId)).toEqual([memoryId]);
    expect(lmem(['diff', String(position), String(position + 1)]).stdout).toMatch(/1 forgotten/);
    const missing = lmem(['recall', 'green tea']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/invalid at: is required/);
  });

  it('previews an import without writing, then imports and exports', () => {
    const file = join(root, 'in.json');
    writeFileSync(file, JSON.stringify({ memories: [{ content: 'Bob works at Acme' }, { text: 'Bob works at Acme' }, { summary: '' }] }));
    expect(lmem(['import', file, '--preview']).stdout).toMatch(/1 new, 1 duplicate, 1 invalid \(nothing written\)[\s\S]*row 3, text: must not be empty/);
    const refused = lmem(['import', file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/invalid row 3\.text/);
    writeFileSync(file, JSON.stringify(['Bob works at Acme', '=1+1']));
    expect(lmem(['import', file]).stdout).toMatch(/2 memories written/);
    const out = join(root, 'out.csv');
    expect(lmem(['export', '--format', 'csv', '--out', out]).stdout).toMatch(/exported to/);
    expect(lmem(['import', out, '--preview']).stdout).toMatch(/csv: 0 new, 2 duplicate/);
  });
});
