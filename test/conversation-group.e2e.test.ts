import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../src/engine/engine.js';
import { injectionOpen } from '../src/queries/recall/format.js';
import { testEnvironment, tempDir } from './support/engine.js';
import { generateGroupChat, people, type GroupTurn } from './support/group-chat.js';
import { standInSummarizer } from './support/stand-in-summarizer.js';

const sessionId = 'group-1';
const roundsPerDay = 35;
const who = { sessionId, chatType: 'group' as const, userId: null };

async function turn(engine: MemoryEngine, t: GroupTurn, n: number, extra: Record<string, unknown> = {}) {
  const before = await engine.beforeLlmRequest({
    ...who,
    message: { messageId: `u${n}`, content: t.user, senderId: t.speaker.id, senderName: t.speaker.name, sentAt: t.at },
    ...extra,
  });
  expect(before.status).toBe('ok');
  const after = await engine.afterLlmResponse({
    ...who, inReplyTo: `u${n}`, message: { messageId: `a${n}`, content: t.reply, senderName: 'Assistant', sentAt: t.replyAt },
  });
  expect(after.status).toBe('ok');
  return { before, after };
}

async function settle(engine: MemoryEngine): Promise<void> {
  for (const task of engine.conversation.tasks()) await engine.conversation.waitForTask(task.taskId);
}

describe('a three-day group conversation through the host hooks', () => {
  it('becomes memories per day segment naming both people, recalled on a later day, minus what was rolled back', async () => {
    const temp = tempDir();
    const summarizer = standInSummarizer();
    // NORMAL: one fsync per append would dominate a few hundred turns.
    const config = loadConfig({ overrides: { dataDir: temp.dir, sqlite: { synchronous: 'NORMAL' } } });
    const engine = await createMemoryEngine(config, { env: testEnvironment(), maintenance: false, llmProvider: summarizer.provider });
    try {
      const turns = generateGroupChat(roundsPerDay);
      let rolledBackMemory: string | undefined;
      for (const [n, t] of turns.entries()) {
        if (t.day === 1 && n === roundsPerDay + 20) {
          // The host undoes two rounds that a summary already covered, and the person says something else.
          await settle(engine);
          await turn(engine, { ...t, user: 'PINEAPPLE is my password' }, 9000);
          await turn(engine, { ...t, user: 'PINEAPPLE again' }, 9001);
          await settle(engine);
          // As `lmem summarize` does: the two rounds become a memory before the host takes them back.
          await engine.conversation.summarize({ sessionId });
          const memoriesBefore = new Set(engine.documents.list({ status: 'active', limit: 1000 }).map((m) => m.memoryId));
          const result = await turn(engine, t, n, { checkpointId: `a${n - 1}` });
          expect(result.before.rolledBack).toBe(4);
          await settle(engine);
          rolledBackMemory = [...memoriesBefore].find((id) => engine.documents.get(id)?.status === 'forgotten');
          continue;
        }
        await turn(engine, t, n);
      }
      await settle(engine);
      await engine.conversation.summarize({ sessionId });
      await engine.indexes.catchUp();

      const session = engine.indexes.conversations.session(sessionId);
      const stored = engine.indexes.conversations.messages(sessionId);
      expect(stored).toHaveLength(turns.length * 2);
      expect(session?.lastSummarizedIndex).toBe(stored.length);
      expect(stored.some((m) => m.content.includes('PINEAPPLE'))).toBe(false);

      const live = engine.documents.list({ status: 'active', limit: 1000 });
      const sourcesOf = (id: string) => engine.indexes.sources.of(id);
      // Memories per day segment: none spans two days, every day has some, every surviving message is in exactly one.
      const days = live.map((m) => new Set(sourcesOf(m.memoryId).map((s) => (s.at ?? '').slice(0, 10))));
      expect(days.every((d) => d.size === 1)).toBe(true);
      expect(new Set(days.flatMap((d) => [...d]))).toEqual(new Set(['2026-03-02', '2026-03-03', '2026-03-04']));
      expect(live.flatMap((m) => sourcesOf(m.memoryId).map((s) => s.messageId)).sort()).toEqual(stored.map((m) => m.messageId).sort());
      // Named participants, and nothing rolled back in any live memory.
      for (const m of live) {
        const spoke = new Set(sourcesOf(m.memoryId).flatMap((s) => people.filter((p) => s.messageId.startsWith('u') && s.content.startsWith(p.name)).map((p) => p.name)));
        expect(new Set(m.participants)).toEqual(new Set([...spoke, ...(m.participants.includes('Assistant') ? ['Assistant'] : [])]));
      }
      expect(new Set(live.flatMap((m) => m.participants))).toEqual(new Set(['Alice', 'Bob', 'Assistant']));
      expect(live.some((m) => m.text.includes('PINEAPPLE'))).toBe(false);
      expect(rolledBackMemory).toBeDefined();
      expect(summarizer.calls.filter((c) => c.chatType === 'private')).toEqual([]);

      // Recall on a later day: the puppy's name from day one, injected for this call only.
      const question = 'What is the name of the beagle puppy Alice adopted?';
      const later = await engine.beforeLlmRequest({
        ...who, message: { messageId: 'q1', content: question, senderId: 'bob', senderName: 'Bob', sentAt: '2026-03-05T10:00:00.000Z' },
      });
      expect(later.memories.some((m) => m.text.includes('Biscuit') && m.text.includes('2026-03-02'))).toBe(true);
      expect(later.extraParts[0]?.text.startsWith(injectionOpen)).toBe(true);
      await engine.indexes.catchUp();
      expect(engine.indexes.conversations.messages(sessionId).at(-1)?.content).toBe(question);
    } finally {
      await engine.close();
      temp.remove();
    }
  });
});
