import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../src/engine/engine.js';
import { filesUnder, lmemIn, markersIn } from './support/erasure-scan.js';
import { removeDataDir, testEnvironment } from './support/engine.js';

const dataDir = mkdtempSync(join(tmpdir(), 'lmem-erase-host-'));
// Exports go outside the data dir, as a user would put them.
const outDir = mkdtempSync(join(tmpdir(), 'lmem-erase-host-out-'));
const lmem = (args: string[]) => lmemIn(dataDir, args);
const json = <T = Record<string, unknown>>(args: string[]): T => {
  const result = lmem([...args, '--json']);
  if (result.code !== 0) throw new Error(`lmem ${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`);
  return JSON.parse(result.stdout) as T;
};
type Manifest = { counts: Record<string, number> };
type Exported = { counts: Record<string, number> };

async function waitForSummaries(engine: MemoryEngine): Promise<void> {
  for (const task of engine.conversation.tasks()) await engine.conversation.waitForTask(task.taskId);
}

/**
 * A host calling the hooks exactly as the README shows: `{ sessionId, userId, message: { content } }`,
 * no senderId. Zoe chats in private; in a group the host passes its bot account as userId and each
 * speaker as senderId.
 */
beforeAll(async () => {
  const engine = await createMemoryEngine(loadConfig({ overrides: { dataDir } }), { env: testEnvironment(Date.UTC(2026, 0, 1), 'host'), maintenance: false });
  for (let n = 0; n < 11; n += 1) {
    await engine.beforeLlmRequest({ sessionId: 'p1', userId: 'zoe', message: { content: `I practise the cello every evening, code zqzoe${n}.` } });
    await engine.afterLlmResponse({ sessionId: 'p1', userId: 'zoe', message: { content: `Evening cello practice noted, zqzoeecho${n}.` } });
  }
  for (let n = 0; n < 6; n += 1) {
    for (const [who, what] of [['alice', 'Alice grows tomatoes on the balcony'], ['bob', 'Bob repairs old bicycles in the garage']] as const) {
      const turn = { sessionId: 'g1', userId: 'bot', chatType: 'group' as const };
      await engine.beforeLlmRequest({ ...turn, message: { content: `${what}, zq${who}${n}.`, senderId: who, senderName: who } });
      await engine.afterLlmResponse({ ...turn, message: { content: `Thanks ${who}.` } });
    }
  }
  await waitForSummaries(engine);
  // A few more turns that only `lmem summarize` (which knows no user) turns into a memory.
  for (let n = 0; n < 3; n += 1) {
    await engine.beforeLlmRequest({ sessionId: 'p1', userId: 'zoe', message: { content: `Late note zqzoelate${n}: the cello recital is on Friday.` } });
  }
  await engine.close();
}, 120_000);

afterAll(() => {
  removeDataDir(dataDir);
  rmSync(outDir, { recursive: true, force: true });
});

describe('erasure of a user whose host calls the hooks as the README shows', () => {
  it('exports, then erases, the user messages, replies and every memory derived from them', () => {
    expect(lmem(['summarize', '--session', 'p1']).code).toBe(0);
    const zoe = json<Exported>(['compliance-export', '--user', 'zoe', '--out', join(outDir, 'zoe')]);
    // 14 messages of Zoe's and 11 replies in her chat; the threshold summary and the one `lmem summarize` made.
    expect(zoe.counts).toMatchObject({ message: 25, memory: 2 });
    const alice = json<Exported>(['compliance-export', '--user', 'alice', '--out', join(outDir, 'alice')]);
    // Alice's six messages, and the group's memory her words went into.
    expect(alice.counts).toMatchObject({ message: 6, memory: 1 });
    expect(json<Manifest>(['compliance-export', '--user', 'bob', '--out', join(outDir, 'bob')]).counts).toMatchObject({ message: 6, memory: 1 });

    const erasedZoe = json<{ counts: Record<string, number> }>(['erase', '--user', 'zoe', '--reason', 'asked to be forgotten']);
    expect(erasedZoe.counts).toMatchObject({ messages: 25, memories: 2 });
    const erasedAlice = json<{ counts: Record<string, number> }>(['erase', '--user', 'alice', '--reason', 'asked to be forgotten']);
    expect(erasedAlice.counts).toMatchObject({ messages: 6, memories: 1 });

    const markers = ['zqzoe', 'zqalice', 'cello', 'tomatoes'];
    const files = filesUnder(dataDir);
    expect(files.some((f) => f.endsWith('.snap'))).toBe(true);
    expect(markersIn(files, markers)).toEqual({});
    // The scan does find what was not erased: Bob's own messages stay readable.
    expect(Object.keys(markersIn(files, ['zqbob']))).toEqual(['zqbob']);

    const replayed = lmem(['replay', '--session', 'p1']);
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toContain('[erased]');
    const group = lmem(['replay', '--session', 'g1']).stdout;
    expect(group).toContain('zqbob0');
    for (const text of [replayed.stdout, group, lmem(['events', '--tail', '1000']).stdout]) {
      expect(markers.filter((m) => text.includes(m))).toEqual([]);
    }
    for (const query of ['cello', 'zqzoe3', 'tomatoes balcony', 'bicycles']) {
      expect(json<{ memories: unknown[] }>(['search', query]).memories).toEqual([]);
    }
    // The group memory is gone for Bob too: it held Alice's words, and its sources were sealed with it.
    expect(json<Manifest>(['compliance-export', '--user', 'bob', '--out', join(outDir, 'bob-after')]).counts).toMatchObject({ message: 6, memory: 0 });
    expect(JSON.parse(lmem(['export']).stdout)).toMatchObject({ memories: [] });
  }, 300_000);
});
