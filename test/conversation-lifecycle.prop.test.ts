import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredMessage } from '../src/commands/conversation/state.js';
import { conversationDecider } from '../src/commands/conversation/decider.js';
import type { ConversationEvent } from '../src/commands/conversation/state.js';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../src/engine/engine.js';
import { streams } from '../src/events/streams.js';
import { cleanRunDigests } from './support/conversation-clean-run.js';
import { testEnvironment, tempDir } from './support/engine.js';
import { standInSummarizer, standInSummary } from './support/stand-in-summarizer.js';

const sessionId = 's1';
type Op =
  | { kind: 'user' | 'assistant'; text: string; gap: number }
  | { kind: 'rollback'; keep: number; viaHistory: boolean; text: string }
  | { kind: 'reset' | 'finish' | 'fail' | 'cancel' };

const text = fc.constantFrom('tea with Ann', 'the red bicycle', '明天去散步', 'Acme project deadline', 'hiking in May');
const gap = fc.constantFrom(1, 1, 2, 90, 24 * 60);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('user' as const), text, gap }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('assistant' as const), text, gap }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rollback' as const), keep: fc.nat(30), viaHistory: fc.boolean(), text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reset' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('finish' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fail' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const) }) },
);

const textOf = (window: readonly StoredMessage[]) =>
  standInSummary({ sessionId, chatType: 'private', messages: window.map((m) => ({ ...m, at: m.sentAt })) }).summary;

/** Drives one session through the hooks while the test holds every summary at the LLM until it says otherwise. */
function harness(engine: MemoryEngine, held: { resolve: () => void; reject: (e: Error) => void }[]) {
  const model: StoredMessage[] = [];
  let clock = Date.UTC(2026, 2, 1, 9);
  let n = 0;
  const running = () => engine.conversation.tasks().filter((t) => t.state === 'running');
  // Every running task is either held at the LLM or on its way to settle: wait for the latter.
  const quiesce = async () => {
    while (running().length > held.length) await new Promise((r) => setTimeout(r, 1));
  };
  const message = (role: 'user' | 'assistant', content: string, minutes: number): StoredMessage => {
    clock += minutes * 60_000;
    n += 1;
    const who = role === 'user' ? { senderId: 'ann', senderName: 'Ann' } : { senderId: null, senderName: null };
    return { messageId: `${role[0]}${n}`, index: model.length, role, content, sentAt: new Date(clock).toISOString(), userId: null, ...who };
  };
  const hookMessage = (m: StoredMessage) => ({ messageId: m.messageId, content: m.content, senderId: m.senderId, senderName: m.senderName, sentAt: m.sentAt });
  const apply = async (o: Op): Promise<void> => {
    switch (o.kind) {
      case 'user':
      case 'assistant': {
        const m = message(o.kind, o.text, o.gap);
        const hook = o.kind === 'user' ? engine.beforeLlmRequest : engine.afterLlmResponse;
        expect((await hook({ sessionId, message: hookMessage(m) })).status).toBe('ok');
        model.push(m);
        break;
      }
      case 'rollback': {
        const keep = o.keep % (model.length + 1);
        model.splice(keep);
        const m = message('user', o.text, 1);
        const reconcile = o.viaHistory
          ? { history: [{ role: 'system' as const, content: 'be kind' }, ...model.map((k) => ({ messageId: k.messageId, role: k.role, content: k.content }))] }
          : { checkpointId: model.at(-1)?.messageId ?? null };
        await engine.beforeLlmRequest({ sessionId, message: hookMessage(m), ...reconcile });
        model.push(m);
        break;
      }
      case 'reset':
        await engine.conversation.reset(sessionId, { force: true });
        held.splice(0);
        model.splice(0);
        break;
      case 'finish':
        held.shift()?.resolve();
        break;
      case 'fail':
        held.shift()?.reject(new Error('llm down'));
        break;
      case 'cancel': {
        const task = running()[0];
        if (task && held.shift()) engine.conversation.cancelTask(task.taskId);
        break;
      }
      default:
        throw new Error(`unknown op ${JSON.stringify(o satisfies never)}`);
    }
    await quiesce();
  };
  return { model, apply };
}

async function checkInvariants(engine: MemoryEngine, model: readonly StoredMessage[]): Promise<void> {
  const stream = (await engine.log.readStream(streams.conversation(sessionId))) as unknown as ConversationEvent[];
  const state = stream.reduce(conversationDecider.evolve, conversationDecider.initialState());
  await engine.indexes.catchUp();
  const surviving = new Map(model.map((m) => [m.messageId, m.content]));
  const session = engine.indexes.conversations.session(sessionId);
  // Cursors never exceed the message count.
  expect(session?.messageCount ?? 0).toBe(model.length);
  expect(session?.lastSummarizedIndex ?? 0).toBeLessThanOrEqual(model.length);
  expect(state.lastSummarizedIndex).toBeLessThanOrEqual(state.messages.length);
  expect(engine.indexes.conversations.messages(sessionId).map((m) => [m.messageId, m.content])).toEqual([...surviving]);
  // No live memory has a rolled-back or reset message among its sources.
  const live = engine.documents.list({ status: 'active', limit: 10_000 });
  for (const memory of live) {
    for (const source of engine.indexes.sources.of(memory.memoryId)) {
      expect(surviving.get(source.messageId)).toBe(source.content);
    }
  }
  // Every live memory is a committed summary of surviving messages, committed with no rollback or reset after the task read the session.
  expect(new Set(live.map((m) => m.memoryId))).toEqual(new Set(state.summaries.flatMap((s) => s.memoryIds)));
  for (const summary of state.summaries) {
    const from = stream.findIndex((e) => e.type === 'SummaryScheduled' && e.data.taskId === summary.taskId);
    const to = stream.findIndex((e) => e.type === 'SummaryCommitted' && e.data.memoryIds.includes(summary.memoryIds[0] ?? ''));
    expect(from).toBeGreaterThanOrEqual(0);
    expect(stream.slice(from, to).filter((e) => e.type === 'MessagesRolledBack' || e.type === 'SessionReset')).toEqual([]);
    const text = textOf(model.slice(summary.fromIndex, summary.toIndex));
    for (const id of summary.memoryIds) expect(engine.documents.get(id)?.text).toBe(text);
  }
  // The projections equal a clean run's that only saw the surviving messages.
  const clean = await cleanRunDigests({ sessionId, messages: model, summaries: state.summaries, pending: state.pending, textOf });
  expect(engine.runner.digest('conversations')).toBe(clean.conversations);
  expect(engine.runner.digest('memory_sources')).toBe(clean.sources);
}

describe('conversation lifecycle over random turns, rollbacks, resets and summary tasks', () => {
  it('keeps every memory built from surviving messages only, and the store equal to a clean run', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 8, maxLength: 30 }), async (ops) => {
        const temp = tempDir();
        const held: { resolve: () => void; reject: (e: Error) => void }[] = [];
        const summarizer = standInSummarizer({ gate: () => new Promise<void>((resolve, reject) => void held.push({ resolve, reject })) });
        const config = loadConfig({
          overrides: { dataDir: temp.dir, sqlite: { synchronous: 'NORMAL' }, conversation: { summarizeThresholdRounds: 2, idleGapMinutes: 60, maxSegmentsPerRun: 2 } },
        });
        const engine = await createMemoryEngine(config, { env: testEnvironment(), maintenance: false, llmProvider: summarizer.provider });
        try {
          const run = harness(engine, held);
          for (const o of ops) {
            await run.apply(o);
            await checkInvariants(engine, run.model);
          }
        } finally {
          await engine.close();
          temp.remove();
        }
      }),
      { numRuns: 12 },
    );
  });
});
