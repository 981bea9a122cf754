import { describe, expect, it } from 'vitest';
import { createExtractiveSummarizer } from '../src/providers/llm/extractive.js';
import { resolveSender } from '../src/providers/llm/identity.js';
import { generateGroupConversation, hostTurns, maxGapInBurstMs, minQuietGapMs, type Language } from './support/group-conversation.js';

const time = (at: string): number => Date.parse(at);

describe('generated three-day group conversation', () => {
  it('is the same for the same seed and differs for another', () => {
    expect(generateGroupConversation()).toEqual(generateGroupConversation());
    expect(generateGroupConversation({ seed: 8 }).turns).not.toEqual(generateGroupConversation().turns);
  });

  it.each<Language>(['en', 'zh'])('spans three consecutive days in bursts with quiet gaps (%s)', (language) => {
    const c = generateGroupConversation({ language });
    expect(c.turns).toHaveLength(300);
    expect(new Set(c.turns.map((t) => t.at.slice(0, 10)))).toEqual(new Set(['2026-03-02', '2026-03-03', '2026-03-04']));
    expect(c.bursts).toHaveLength(12);
    c.bursts.forEach((burst, b) => {
      const inBurst = c.turns.slice(burst.first, burst.last + 1);
      expect(inBurst.every((t) => t.at.startsWith(`2026-03-0${burst.day + 1}`))).toBe(true);
      inBurst.slice(1).forEach((t, i) => {
        const gap = time(t.at) - time(inBurst[i]?.at ?? '');
        expect(gap).toBeGreaterThan(0);
        expect(gap).toBeLessThanOrEqual(maxGapInBurstMs);
      });
      const next = c.bursts[b + 1];
      if (next) expect(time(c.turns[next.first]?.at ?? '') - time(c.turns[burst.last]?.at ?? '')).toBeGreaterThanOrEqual(minQuietGapMs);
    });
  });

  it('tells nine facts, three a day, from either account of the speaker', () => {
    const c = generateGroupConversation();
    expect(c.facts.map((f) => f.day)).toEqual([1, 1, 1, 2, 2, 2, 3, 3, 3]);
    for (const fact of c.facts) {
      const turn = c.turns[fact.index];
      expect(turn?.content).toBe(fact.text);
      expect(turn?.at.slice(0, 10)).toBe(`2026-03-0${fact.day + 1}`);
      expect(resolveSender(turn ?? { senderId: null, senderName: null }, c.identityAliases)).toBe(fact.speaker);
      expect(fact.expected.every((word) => fact.text.includes(word))).toBe(true);
    }
    const ids = new Set(c.turns.map((t) => t.senderId));
    expect(ids).toEqual(new Set(Object.keys(c.identityAliases)));
    expect(ids.size).toBe(4);
  });

  it.each<Language>(['en', 'zh'])('the extractive summary of each burst keeps its facts, by name (%s)', async (language) => {
    const c = generateGroupConversation({ language });
    const summarizer = createExtractiveSummarizer({ identityAliases: c.identityAliases });
    for (const burst of c.bursts) {
      const messages = c.turns.slice(burst.first, burst.last + 1);
      const s = await summarizer.summarize({ sessionId: c.sessionId, chatType: 'group', messages });
      expect(s.participants.every((p) => p === 'Alice' || p === 'Bob')).toBe(true);
      expect(s.summary).not.toMatch(/\buser\b|Ally|Bobby/);
      for (const fact of c.facts.filter((f) => f.index >= burst.first && f.index <= burst.last)) {
        expect(s.keyFacts.filter((k) => k.startsWith(fact.speaker) && fact.expected.every((word) => k.includes(word)))).toHaveLength(1);
      }
    }
  });

  it.each<Language>(['en', 'zh'])('the extractive summary of a day, and of all three, keeps every fact told in it (%s)', async (language) => {
    const c = generateGroupConversation({ language });
    const summarizer = createExtractiveSummarizer({ identityAliases: c.identityAliases });
    const dayOf = (index: number): number => c.bursts.find((b) => b.first <= index && index <= b.last)?.day ?? 0;
    for (const day of [1, 2, 3, 'all'] as const) {
      const messages = c.turns.filter((t) => day === 'all' || dayOf(t.index) === day);
      const s = await summarizer.summarize({ sessionId: c.sessionId, chatType: 'group', messages });
      expect(s.summary.length).toBeLessThanOrEqual(800);
      expect(new Set(s.participants)).toEqual(new Set(['Alice', 'Bob']));
      for (const fact of c.facts.filter((f) => day === 'all' || f.day === day)) {
        expect(s.keyFacts).toContain(`${fact.speaker}${language === 'zh' ? '：' : ': '}${fact.text}`);
      }
    }
  });

  it.each<Language>(['en', 'zh'])('as the host sees it, the assistant answers every fifth message and each burst\'s last, before the next message (%s)', (language) => {
    const c = generateGroupConversation({ language });
    const turns = hostTurns(c);
    expect(turns.map((t) => t.message)).toEqual(c.turns);
    const answered = turns.flatMap((t, n) => (t.reply ? [n] : []));
    expect(answered).toEqual(c.turns.map((_, n) => n).filter((n) => (n + 1) % 5 === 0 || c.bursts.some((b) => b.last === n)));
    turns.forEach((t, n) => {
      if (!t.reply) return;
      expect(time(t.reply.at)).toBeGreaterThan(time(t.message.at));
      const next = turns[n + 1];
      if (next) expect(time(t.reply.at)).toBeLessThan(time(next.message.at));
      expect(c.facts.some((f) => f.expected.some((word) => t.reply?.content.includes(word)))).toBe(false);
    });
    expect(new Set(turns.flatMap((t) => (t.reply ? [t.reply.messageId] : []))).size).toBe(answered.length);
  });
});
