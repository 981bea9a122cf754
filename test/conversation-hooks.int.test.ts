import { afterEach, describe, expect, it } from 'vitest';
import { stampEvents } from '../src/commands/decider.js';
import { conversationCommands } from '../src/interfaces/cli/conversation-commands.js';
import { createOutput } from '../src/interfaces/cli/output.js';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine, type EngineOptions, type MemoryEngine } from '../src/engine/engine.js';
import { ValidationError } from '../src/events/errors.js';
import { streams } from '../src/events/streams.js';
import { injectionOpen } from '../src/queries/recall/format.js';
import { testMetadata } from './support/decider-spec.js';
import { testEnvironment, tempDir } from './support/engine.js';
import { standInSummarizer } from './support/stand-in-summarizer.js';

const sessionId = 's1';
const block = `${injectionOpen}\n[memory id=old time=t importance=0.50]\nold memory\n[/memory]\n</livingmemory>`;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function open(conversation: Record<string, unknown> = {}, options: EngineOptions = {}, dir?: string) {
  const temp = dir ? { dir, remove: () => undefined } : tempDir();
  const config = loadConfig({ overrides: { dataDir: temp.dir, sqlite: { synchronous: 'NORMAL' }, conversation: { summarizeThresholdRounds: 2, ...conversation } } });
  const engine = await createMemoryEngine(config, { env: testEnvironment(Date.UTC(2026, 0, 1), `e${cleanups.length}x${Math.random()}`), maintenance: false, ...options });
  let closed = false;
  const close = async () => {
    if (!closed) await engine.close();
    closed = true;
  };
  cleanups.push(async () => {
    await close();
    temp.remove();
  });
  return { engine, dir: temp.dir, close };
}

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 9, minute)).toISOString();
async function round(engine: MemoryEngine, n: number, text = `turn ${n} about tea`, extra: Record<string, unknown> = {}) {
  await engine.beforeLlmRequest({ sessionId, userId: 'ann', message: { messageId: `u${n}`, content: text, senderName: 'Ann', sentAt: at(2 * n) }, ...extra });
  return engine.afterLlmResponse({ sessionId, userId: 'ann', message: { messageId: `a${n}`, content: `reply ${n}`, sentAt: at(2 * n + 1) } });
}
const stream = async (engine: MemoryEngine) => (await engine.log.readStream(streams.conversation(sessionId))).map((e) => e.type);

describe('host hooks', () => {
  it('injects memories as extra parts of this call only, and strips blocks older modes left in the history', async () => {
    const { engine } = await open();
    await engine.writeMemory({ text: 'Ann drinks green tea every morning', sessionId });
    const result = await engine.beforeLlmRequest({
      sessionId, userId: 'ann',
      message: { messageId: 'u1', content: `${block}\nwhat tea does Ann drink?` },
      history: [{ role: 'system', content: `be brief ${block}` }],
    });
    expect(result.status).toBe('ok');
    expect(result.extraParts[0]?.text).toContain('green tea');
    expect(result.history).toEqual([{ role: 'system', content: 'be brief' }]);
    await engine.indexes.catchUp();
    expect(engine.indexes.conversations.messages(sessionId).map((m) => m.content)).toEqual(['what tea does Ann drink?']);
  });

  it('refuses to reset a session that never recorded a message unless forced, for every caller', async () => {
    const { engine } = await open();
    const head = await engine.log.headPosition();
    await expect(engine.conversation.reset('typo')).rejects.toMatchObject({ code: 'unknown_session', message: expect.stringContaining('typo') });
    expect(await engine.log.headPosition()).toBe(head);
    await engine.conversation.reset('typo', { reason: 'on purpose', force: true });
    expect(await engine.log.headPosition()).toBeGreaterThan(head);
    await round(engine, 1);
    await engine.conversation.reset(sessionId, 'known session');
    expect(await stream(engine)).toContain('SessionReset');
  });

  it('records without recalling when the host imports past history (recall: false)', async () => {
    const { engine } = await open();
    await engine.writeMemory({ text: 'Ann drinks green tea every morning', sessionId });
    const result = await engine.beforeLlmRequest({ sessionId, userId: 'ann', recall: false, message: { messageId: 'u1', content: 'what tea does Ann drink?' } });
    expect(result).toMatchObject({ status: 'ok', messageId: 'u1', memories: [], extraParts: [] });
    expect(await stream(engine)).toEqual(['MessageRecorded']);
    expect(await engine.log.readStream(streams.recall(sessionId))).toEqual([]);
  });

  it('reads and writes nothing for a session or user outside the whitelist', async () => {
    const { engine } = await open({ whitelist: { users: ['ann'], sessions: [] } });
    const head = await engine.log.headPosition();
    const before = await engine.beforeLlmRequest({ sessionId, userId: 'bob', message: { content: 'hello' } });
    const after = await engine.afterLlmResponse({ sessionId, userId: 'bob', message: { content: 'hi' } });
    expect([before.status, after.status]).toEqual(['rejected', 'rejected']);
    await engine.flushAccess();
    expect(await engine.log.headPosition()).toBe(head);
    // In a group, the reply to an allowed person is recorded though the reply itself names no user.
    await engine.beforeLlmRequest({ sessionId, chatType: 'group', message: { content: 'hello', senderId: 'ann' } });
    expect((await engine.afterLlmResponse({ sessionId, chatType: 'group', message: { content: 'hi Ann' } })).status).toBe('ok');
  });

  it('refuses a bad request by naming the field, and returns at once when the engine is not ready', async () => {
    const { engine, close } = await open();
    await expect(engine.beforeLlmRequest({ sessionId, message: { content: 'x', sentAt: 'yesterday' } })).rejects.toThrow(/message\.sentAt/);
    await close();
    expect((await engine.beforeLlmRequest({ sessionId, message: { content: 'x' } })).status).toBe('not_ready');
  });

  it('drops a reply to a message the host rolled back meanwhile', async () => {
    const { engine } = await open();
    await engine.beforeLlmRequest({ sessionId, message: { messageId: 'u1', content: 'first' } });
    await engine.beforeLlmRequest({ sessionId, message: { messageId: 'u2', content: 'edited' }, checkpointId: null });
    const late = await engine.afterLlmResponse({ sessionId, inReplyTo: 'u1', message: { content: 'answer to first' } });
    expect(late.status).toBe('stale');
    expect(await stream(engine)).toEqual(['MessageRecorded', 'MessagesRolledBack', 'MessageRecorded']);
  });

  it('summarizes at the threshold; a failure is recorded and the next round tries again', async () => {
    let down = true;
    const summarizer = standInSummarizer({ gate: async () => (down ? Promise.reject(new Error('llm down')) : undefined) });
    const { engine } = await open({}, { llmProvider: summarizer.provider });
    await round(engine, 1);
    const failed = await round(engine, 2);
    expect(await engine.conversation.waitForTask(failed.summaryTaskId ?? '')).toMatchObject({ state: 'failed', error: 'llm down' });
    down = false;
    const next = await round(engine, 3);
    expect(await engine.conversation.waitForTask(next.summaryTaskId ?? '')).toMatchObject({ state: 'committed' });
    await engine.indexes.catchUp();
    expect(engine.indexes.conversations.session(sessionId)).toMatchObject({ messageCount: 6, lastSummarizedIndex: 6, pendingSummary: null });
    const [memory] = engine.documents.list({ status: 'active' });
    expect(engine.indexes.sources.of(memory?.memoryId ?? '').map((s) => s.messageId)).toEqual(['u1', 'a1', 'u2', 'a2', 'u3', 'a3']);
    expect(memory).toMatchObject({ sessionId, userId: 'ann', participants: ['Ann'] });
    expect(await stream(engine)).toContain('SummaryFailed');
    const rebuilt = await engine.runner.rebuild('conversations');
    expect(rebuilt.digest).toBe(engine.runner.digest('conversations'));
  });

  it('summarize now takes the whole backlog, a run after another and after the summary already running; n segments when asked', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const summarizer = standInSummarizer({ gate: () => (summarizer.calls.length === 1 ? held : Promise.resolve()) });
    // Rounds ten minutes apart over a five-minute gap: a segment each; two segments a run; the first run starts at round two.
    const { engine } = await open({ idleGapMinutes: 5, maxSegmentsPerRun: 2 }, { llmProvider: summarizer.provider });
    for (const n of [5, 10, 15, 20, 25, 30, 35]) await round(engine, n);
    expect(engine.conversation.tasks().map((t) => t.state)).toEqual(['running']);
    const summarized = engine.conversation.summarize({ sessionId });
    release();
    expect((await summarized).map((r) => r.state)).toEqual(['committed', 'committed', 'committed']);
    await engine.indexes.catchUp();
    expect(engine.indexes.conversations.session(sessionId)).toMatchObject({ messageCount: 14, lastSummarizedIndex: 14, pendingSummary: null });
    expect(engine.documents.list({ status: 'active' })).toHaveLength(7);
    const quiet = (await open({ idleGapMinutes: 5, summarizeThresholdRounds: 100 }, { llmProvider: summarizer.provider })).engine;
    for (const n of [5, 10, 15]) await round(quiet, n);
    expect(await quiet.conversation.summarize({ sessionId, maxSegments: 1 })).toHaveLength(1);
    await quiet.indexes.catchUp();
    expect(quiet.indexes.conversations.session(sessionId)).toMatchObject({ messageCount: 6, lastSummarizedIndex: 2 });
  });

  it('a reset cancels the running summary and forgets the memories of the session', async () => {
    const held: (() => void)[] = [];
    const summarizer = standInSummarizer({ gate: (r) => (r.messages.length > 4 ? new Promise<void>((resolve) => held.push(resolve)) : Promise.resolve()) });
    const { engine } = await open({}, { llmProvider: summarizer.provider });
    await round(engine, 1);
    const first = await round(engine, 2);
    await engine.conversation.waitForTask(first.summaryTaskId ?? '');
    await round(engine, 3);
    const second = await round(engine, 4);
    expect(held).toHaveLength(0);
    await engine.conversation.reset(sessionId);
    expect(await engine.conversation.waitForTask(second.summaryTaskId ?? '')).toMatchObject({ state: 'compensated' });
    expect(engine.documents.count('active')).toBe(0);
    expect(await stream(engine)).toEqual(expect.arrayContaining(['SessionReset', 'SummaryCompensated']));
  });

  it('closing cancels and awaits a running summary; a summary a crash left pending is compensated on open', async () => {
    const summarizer = standInSummarizer({ gate: () => new Promise<void>(() => undefined) });
    const { engine, dir, close } = await open({}, { llmProvider: summarizer.provider });
    await round(engine, 1);
    const task = await round(engine, 2);
    await close();
    expect(await engine.conversation.waitForTask(task.summaryTaskId ?? '')).toMatchObject({ state: 'compensated' });
    // A process that stopped between writing a summary's memory and committing it:
    const crashed = await open({}, {}, dir);
    await crashed.engine.log.append(streams.conversation(sessionId), stampEvents([
      { type: 'SummaryScheduled', schemaVersion: 1, data: { sessionId, taskId: 'lost', fromIndex: 0, toIndex: 4, sessionRevision: 0 } },
    ], testMetadata(7)));
    await crashed.engine.writeMemory({ memoryId: 'lost.0', text: 'half-done summary', sessionId });
    await crashed.close();
    const reopened = await open({}, {}, dir);
    expect(reopened.engine.documents.get('lost.0')?.status).toBe('forgotten');
    await reopened.engine.indexes.catchUp();
    expect(reopened.engine.indexes.conversations.session(sessionId)?.pendingSummary).toBeNull();
  });

  it('lmem cleanup lists and removes injection blocks in stored messages; lmem reset needs a session', async () => {
    const { engine } = await open();
    const legacy = { sessionId, messageId: 'old1', index: 0, role: 'user' as const, senderId: null, userId: null, senderName: null, content: `${block}\nhello`, sentAt: at(0) };
    await engine.log.append(streams.conversation(sessionId), stampEvents([{ type: 'MessageRecorded', schemaVersion: 2, data: legacy }], testMetadata(3)));
    const printed: string[] = [];
    const out = createOutput(true, (s) => void printed.push(s));
    const run = (name: string, positionals: string[], flags: Record<string, string> = {}) =>
      conversationCommands[name]?.run(engine, { positionals, flags }, out);
    await run('cleanup', ['preview']);
    await run('cleanup', ['exec']);
    await run('cleanup', ['preview']);
    const [preview, exec, after] = printed.map((p) => JSON.parse(p) as { messages: { cleaned: string }[] });
    expect(preview?.messages.map((m) => m.cleaned)).toEqual(['hello']);
    expect(exec?.messages).toHaveLength(1);
    expect(after?.messages).toEqual([]);
    expect(engine.indexes.conversations.messages(sessionId).map((m) => m.content)).toEqual(['hello']);
    await expect(run('reset', [])).rejects.toThrow(ValidationError);
    await expect(run('cleanup', ['everything'])).rejects.toThrow(/mode/);
    await expect(run('summarize', ['0'])).rejects.toThrow(/positive integer/);
  });
});
