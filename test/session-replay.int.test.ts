import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../src/engine/engine.js';
import { streams } from '../src/events/streams.js';
import { testEnvironment, tempDir } from './support/engine.js';
import { standInSummarizer } from './support/stand-in-summarizer.js';

const sessionId = 'tea-1';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function open(): Promise<MemoryEngine> {
  const temp = tempDir();
  const config = loadConfig({ overrides: { dataDir: temp.dir, sqlite: { synchronous: 'NORMAL' }, conversation: { summarizeThresholdRounds: 2 } } });
  const engine = await createMemoryEngine(config, { env: testEnvironment(Date.UTC(2026, 0, 1), 'sr'), maintenance: false, llmProvider: standInSummarizer().provider });
  cleanups.push(async () => {
    await engine.close();
    temp.remove();
  });
  return engine;
}

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 9, minute)).toISOString();
async function round(engine: MemoryEngine, n: number, text: string, extra: Record<string, unknown> = {}) {
  const before = await engine.beforeLlmRequest({ sessionId, userId: 'ann', message: { messageId: `u${n}`, content: text, senderName: 'Ann', sentAt: at(2 * n) }, ...extra });
  await engine.afterLlmResponse({ sessionId, userId: 'ann', message: { messageId: `a${n}`, content: `reply ${n}`, sentAt: at(2 * n + 1) } });
  for (const task of engine.conversation.tasks()) await engine.conversation.waitForTask(task.taskId);
  return before;
}

describe('session replay', () => {
  it('shows each turn with its messages, what it recalled, the memories summaries wrote and what a rollback took back', async () => {
    const engine = await open();
    const tea = await engine.writeMemory({ text: 'Ann drinks green tea every morning', sessionId });
    const first = await round(engine, 1, 'which tea does Ann drink?');
    await round(engine, 2, 'and in the evening, green tea again?');
    const committed = (await engine.log.readStream(streams.conversation(sessionId))).flatMap((e) => (e.type === 'SummaryCommitted' ? e.data.memoryIds : []));
    expect(committed.length).toBeGreaterThan(0);
    // The host goes back to the end of turn 1: turn 2 and the summary built from it are taken back.
    await round(engine, 3, 'let us talk about coffee', { checkpointId: 'a1' });

    const replay = await engine.replaySession(sessionId);
    expect(replay.turns.map((t) => t.turn)).toEqual([1, 2, 3]);
    expect(replay.totalTurns).toBe(3);
    const [t1, t2, t3] = replay.turns;
    expect(t1?.messages.map((m) => [m.messageId, m.role, m.content])).toEqual([
      ['u1', 'user', 'which tea does Ann drink?'],
      ['a1', 'assistant', 'reply 1'],
    ]);
    expect(t1?.recalls).toHaveLength(1);
    expect(t1?.recalls[0]?.messageId).toBe('u1');
    expect(t1?.recalls[0]?.memoryIds).toEqual(first.memories.map((m) => m.memoryId));
    expect(t1?.recalls[0]?.memoryIds).toContain(tea.memoryId);
    expect(t1?.recalls[0]?.injectedChars).toBe(first.extraParts[0]?.text.length);

    const written = t2?.written.map((w) => w.memoryId) ?? [];
    // The rollback the host asked for before turn 3's message closes turn 2, with what it took back.
    expect(t2?.summaries.map((s) => s.status)).toEqual(['scheduled', 'committed', 'compensated']);
    expect(written).toEqual(committed);
    expect(t2?.written[0]?.text).toContain('green tea again');

    expect(t2?.rolledBack.map((r) => [...r.messageIds].sort())).toEqual([['a2', 'u2']]);
    expect(t2?.summaries.at(-1)?.memoryIds).toEqual(written);
    expect(t2?.forgotten.map((f) => f.memoryId)).toEqual(written);
    // Turn 3 reaches the threshold again: a new summary over the surviving messages, nothing taken back.
    expect(t3?.summaries.map((s) => s.status)).toEqual(['scheduled', 'committed']);
    expect(t3?.written[0]?.text).not.toContain('evening');
    expect(t3?.messages.map((m) => [m.messageId, m.index])).toEqual([['u3', 2], ['a3', 3]]);
  });

  it('stops after a turn or at a position, and refuses an unknown session', async () => {
    const engine = await open();
    await round(engine, 1, 'hello there');
    await round(engine, 2, 'tell me about tea');
    await round(engine, 3, 'and coffee');
    const toTurn = await engine.replaySession(sessionId, { turn: 2 });
    expect(toTurn.turns.map((t) => t.turn)).toEqual([1, 2]);
    expect(toTurn.totalTurns).toBe(3);
    const all = await engine.replaySession(sessionId);
    expect(toTurn.turns).toEqual(all.turns.slice(0, 2));

    const u2 = (await engine.log.readStream(streams.conversation(sessionId))).find((e) => e.type === 'MessageRecorded' && e.data.messageId === 'u2');
    const atU2 = await engine.replaySession(sessionId, { position: u2?.globalPosition ?? 0n });
    expect(atU2.position).toBe(u2?.globalPosition);
    expect(atU2.turns.at(-1)?.messages.map((m) => m.messageId)).toEqual(['u2']);
    expect(atU2.turns.at(-1)?.recalls).toEqual([]);

    await expect(engine.replaySession('nobody')).rejects.toThrow(/session/);
  });

  it('lists a turn\'s recall in the recalled memory\'s history', async () => {
    const engine = await open();
    const tea = await engine.writeMemory({ text: 'Ann drinks green tea every morning', sessionId });
    await round(engine, 1, 'which tea does Ann drink?');
    const history = await engine.history(tea.memoryId);
    expect(history?.entries.find((e) => e.type === 'MemoriesRecalled')?.description).toMatch(/recalled for message u1 of session tea-1 \(score/);
  });
});
