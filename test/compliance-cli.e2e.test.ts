import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine } from '../src/engine/engine.js';
import { testEnvironment } from './support/engine.js';

// Runs the compiled CLI as a user would; `npm test` builds dist/ before the suite starts.
const cli = join(process.cwd(), 'dist/src/interfaces/cli/main.cjs');
// Exports go beside the store: nothing may be written inside the data dir.
const root = mkdtempSync(join(tmpdir(), 'lmem-compliance-cli-'));
const dataDir = join(root, 'store');
const lmem = (args: string[]) => {
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, LIVINGMEMORY_DATA_DIR: dataDir } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};

beforeAll(async () => {
  // The CLI has no host hooks: a host (this test) holds a short conversation first, then closes the store.
  const engine = await createMemoryEngine(loadConfig({ overrides: { dataDir } }), { env: testEnvironment(Date.UTC(2026, 0, 1), 'cli'), maintenance: false, llmProvider: null });
  await engine.writeMemory({ text: 'Ann drinks green tea', userId: 'ann', sessionId: 's1' });
  for (const n of [1, 2]) {
    await engine.beforeLlmRequest({ sessionId: 's1', userId: 'ann', message: { messageId: `u${n}`, content: n === 1 ? 'which tea does Ann drink?' : '=HYPERLINK("x")', senderId: 'ann' } });
    await engine.afterLlmResponse({ sessionId: 's1', userId: 'ann', message: { messageId: `a${n}`, content: `reply ${n}` } });
  }
  await engine.close();
}, 30_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('lmem replay and compliance-export', () => {
  it('replays a session turn by turn, as text and JSON, up to a turn', () => {
    const text = lmem(['replay', '--session', 's1']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/session s1: 2 of 2 turns/);
    expect(text.stdout).toMatch(/turn 1[\s\S]*\[0\] user ann: "which tea does Ann drink\?"[\s\S]*recalled cli-\d+ \(\d\.\d{3}\)/);
    const upTo = JSON.parse(lmem(['replay', '--session', 's1', '--to', '1', '--json']).stdout) as { totalTurns: number; turns: { turn: number; messages: { messageId: string }[] }[] };
    expect(upTo.totalTurns).toBe(2);
    expect(upTo.turns.map((t) => [t.turn, t.messages.map((m) => m.messageId)])).toEqual([[1, ['u1', 'a1']]]);
    const both = lmem(['replay', '--session', 's1', '--to', '1', '--to-position', '3']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/invalid to/);
  });

  it('exports a user, verifies the export, and catches a changed file', () => {
    const out = join(root, 'export-ann');
    const exported = lmem(['compliance-export', '--user', 'ann', '--out', out]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toMatch(/exported user ann up to position \d+/);
    expect(readFileSync(join(out, 'records.csv'), 'utf8')).toContain(`"'=HYPERLINK(""x"")"`);
    expect(lmem(['compliance-export', '--verify', out]).stdout).toMatch(/verifies/);
    appendFileSync(join(out, 'records.jsonl'), '{"record":"memory"}\n');
    const tampered = lmem(['compliance-export', '--verify', out]);
    expect(tampered.code).toBe(3);
    expect(tampered.stdout).toMatch(/does NOT verify[\s\S]*records\.jsonl: sha256/);
    const none = lmem(['compliance-export', '--out', join(root, 'x')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/invalid subject/);
  });
});
