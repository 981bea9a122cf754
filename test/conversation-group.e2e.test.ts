import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../src/engine/engine.js';
import { injectionOpen } from '../src/queries/recall/format.js';
import { testEnvironment, tempDir } from './support/engine.js';
import { generateGroupConversation, groupAccounts, hostTurns, type GroupConversation, type HostTurn, type Language } from './support/group-conversation.js';

/*
 * Issue 5 end to end: a three-day group chat of Alice and Bob (300 messages from four platform
 * accounts, plus the assistant's replies) goes through the host hooks of an engine whose
 * summarizer is the one its configuration builds, the offline extractive one: no stand-in.
 */

const who = (c: GroupConversation) => ({ sessionId: c.sessionId, chatType: 'group' as const, userId: null });
// Mid day two, ten messages into a burst: the summary that covers the rolled-back rounds covers those ten too, and they survive.
const rollbackAt = 160;
const secret = 'PINEAPPLE';

async function turn(engine: MemoryEngine, c: GroupConversation, t: HostTurn, extra: Record<string, unknown> = {}) {
  const { messageId, content, senderId, senderName, at } = t.message;
  const before = await engine.beforeLlmRequest({ ...who(c), message: { messageId, content, senderId, senderName, sentAt: at }, ...extra });
  expect(before.status).toBe('ok');
  if (t.reply) {
    const { messageId: replyId, content: reply, at: replyAt } = t.reply;
    const after = await engine.afterLlmResponse({ ...who(c), inReplyTo: messageId, message: { messageId: replyId, content: reply, senderName: 'Assistant', sentAt: replyAt } });
    expect(after.status).toBe('ok');
  }
  return before;
}

async function settle(engine: MemoryEngine): Promise<void> {
  for (const task of engine.conversation.tasks()) await engine.conversation.waitForTask(task.taskId);
}

/** Two rounds the host will take back: Bob tells codes, the assistant acknowledges; just after `previous`, before the next message. */
function secretRounds(previous: HostTurn, language: Language): HostTurn[] {
  const bob = groupAccounts.Bob[0];
  const at = (seconds: number) => new Date(Date.parse(previous.message.at) + seconds * 1000).toISOString();
  const said = language === 'zh' ? [`我的储物柜密码是${secret} 4471。`, `自行车锁的密码是${secret} 9918。`] : [`My locker code is ${secret} 4471.`, `And the bike lock code is ${secret} 9918.`];
  return said.map((content, k) => ({
    message: { messageId: `secret${k}`, index: -1, role: 'user', senderId: bob.id, senderName: bob.name, content, at: at(7 + 2 * k) },
    reply: { messageId: `secret-reply${k}`, content: language === 'zh' ? '收到，谢谢。' : 'Noted, thanks.', at: at(8 + 2 * k) },
  }));
}

describe('a three-day group conversation through the host hooks, summarized by the extractive summarizer', () => {
  it.each<Language>(['en', 'zh'])('becomes memories per day naming Alice and Bob, recalled on day four, minus what was rolled back (%s)', async (language) => {
    const conversation = generateGroupConversation({ language });
    const { sessionId } = conversation;
    const temp = tempDir();
    const config = loadConfig({
      overrides: {
        dataDir: temp.dir,
        // NORMAL: one fsync per append would dominate a few hundred turns.
        sqlite: { synchronous: 'NORMAL' },
        // A memory per burst (bursts are 90 minutes or more apart), so recall has to pick among a dozen.
        conversation: { idleGapMinutes: 60 },
        llm: { provider: 'extractive', identityAliases: conversation.identityAliases },
      },
    });
    const engine = await createMemoryEngine(config, { env: testEnvironment(), maintenance: false });
    try {
      const turns = hostTurns(conversation);
      const injected: string[] = [];
      let forgotten: { memoryId: string; survivors: string[] } | undefined;
      for (const [n, t] of turns.entries()) {
        const previous = turns[n - 1];
        if (n === rollbackAt && previous) {
          await settle(engine);
          const rounds = secretRounds(previous, language);
          for (const r of rounds) await turn(engine, conversation, r);
          // As `lmem summarize` does: the two rounds become a memory before the host takes them back.
          await engine.conversation.summarize({ sessionId });
          const live = engine.documents.list({ status: 'active', limit: 1000 });
          const withSecret = live.filter((m) => m.text.includes(secret) || m.keyFacts.some((f) => f.includes(secret)));
          expect(withSecret).toHaveLength(1);
          const memoryId = withSecret[0]?.memoryId ?? '';
          const rolledBackIds = new Set(rounds.flatMap((r) => [r.message.messageId, r.reply?.messageId]));
          const survivors = sourcesOf(engine, memoryId).map((s) => s.messageId).filter((id) => !rolledBackIds.has(id));
          forgotten = { memoryId, survivors };
          // The host's history ends with the message before the two rounds.
          const before = await turn(engine, conversation, t, { checkpointId: previous.reply?.messageId ?? previous.message.messageId });
          expect(before.rolledBack).toBe(4);
          expect(engine.documents.get(memoryId)?.status).toBe('forgotten');
          injected.push(before.extraParts.map((p) => p.text).join('\n'));
          continue;
        }
        const before = await turn(engine, conversation, t);
        if (forgotten) injected.push(before.extraParts.map((p) => p.text).join('\n'));
      }
      await settle(engine);
      await engine.conversation.summarize({ sessionId });
      await engine.indexes.catchUp();

      const stored = engine.indexes.conversations.messages(sessionId);
      expect(stored).toHaveLength(turns.length + turns.filter((t) => t.reply).length);
      expect(engine.indexes.conversations.session(sessionId)?.lastSummarizedIndex).toBe(stored.length);
      expect(stored.some((m) => m.content.includes(secret))).toBe(false);

      const live = engine.documents.list({ status: 'active', limit: 1000 });
      const days = live.map((m) => new Set(sourcesOf(engine, m.memoryId).map((s) => (s.at ?? '').slice(0, 10))));
      // Memories per day segment: none spans two days, every day has some, every stored message is in exactly one.
      expect(days.every((d) => d.size === 1)).toBe(true);
      expect(new Set(days.flatMap((d) => [...d]))).toEqual(new Set(['2026-03-02', '2026-03-03', '2026-03-04']));
      expect(live.flatMap((m) => sourcesOf(engine, m.memoryId).map((s) => s.messageId)).sort()).toEqual(stored.map((m) => m.messageId).sort());

      // Named participants: each memory names the people who spoke in it, by their one name, whichever account they wrote from.
      for (const m of live) {
        const spoke = new Set(sourcesOf(engine, m.memoryId).flatMap((s) => (s.role === 'user' && s.senderId ? [conversation.identityAliases[s.senderId]] : [])));
        expect(new Set(m.participants)).toEqual(spoke);
        expect([m.text, ...m.keyFacts].join('\n')).not.toMatch(/\b(?:user|Ally|Bobby)\b|tg:|wx:|qq:/);
      }
      expect(new Set(live.flatMap((m) => m.participants))).toEqual(new Set(['Alice', 'Bob']));

      // The rollback: the memory that covered the rolled-back rounds is forgotten, what survived of it is summarized again, the codes are nowhere.
      expect(forgotten?.survivors.length).toBeGreaterThan(0);
      const covering = new Map(live.flatMap((m) => sourcesOf(engine, m.memoryId).map((s) => [s.messageId, m.memoryId] as const)));
      for (const id of forgotten?.survivors ?? []) expect(covering.get(id)).toBeDefined();
      expect(live.some((m) => [m.text, ...m.keyFacts, ...m.topics].join('\n').includes(secret))).toBe(false);

      // Recall on a later day: each fact's question, asked on day four, injects a memory holding the fact.
      const day4 = Date.parse('2026-03-05T10:00:00.000Z');
      const recalled: string[] = [];
      for (const [k, fact] of conversation.facts.entries()) {
        const asker = groupAccounts[fact.speaker === 'Alice' ? 'Bob' : 'Alice'][0];
        const later = await engine.beforeLlmRequest({
          ...who(conversation), message: { messageId: `q${k}`, content: fact.query, senderId: asker.id, senderName: asker.name, sentAt: new Date(day4 + k * 60_000).toISOString() },
        });
        const text = later.extraParts[0]?.text ?? '';
        expect(text.startsWith(injectionOpen)).toBe(true);
        injected.push(text);
        if (memoryBlocks(text).some((block) => fact.expected.every((word) => block.includes(word)))) recalled.push(fact.id);
      }
      // The one fact allowed to be missed, by name: "Where does Bob work now?" shares only "Bob" with
      // "I quit my job at the bank, ... a data engineer at Zalando" (work, job; 工作, 辞职/工程师 in
      // Chinese), and the default hash embedding knows no synonyms. The memory holds the fact; finding
      // it is recall's part, and depends on how the neighbouring bursts rank.
      const lexicalGap = ['bob-job'];
      expect(conversation.facts.map((f) => f.id).filter((id) => !recalled.includes(id) && !lexicalGap.includes(id))).toEqual([]);
      const locker = language === 'zh' ? 'Bob的储物柜密码是多少？' : "What is Bob's locker code?";
      const asked = await engine.beforeLlmRequest({ ...who(conversation), message: { messageId: 'q-locker', content: locker, senderId: 'tg:1001', senderName: 'Alice', sentAt: new Date(day4 + 3_600_000).toISOString() } });
      injected.push(asked.extraParts.map((p) => p.text).join('\n'));
      expect(injected.filter((text) => text.includes(secret))).toEqual([]);
    } finally {
      await engine.close();
      temp.remove();
    }
  });
});

const sourcesOf = (engine: MemoryEngine, memoryId: string) => engine.indexes.sources.of(memoryId);

/** The injected memories, one block each. */
const memoryBlocks = (injection: string): string[] => injection.split('[memory ').slice(1);
