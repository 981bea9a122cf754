import { describe, expect, it } from 'vitest';
import { createExtractiveSummarizer } from '../src/providers/llm/extractive.js';
import { participantsOf, resolveSender } from '../src/providers/llm/identity.js';
import { LlmProviderError, summarySchema, type Summary } from '../src/providers/llm/provider.js';
import { chineseGroup, englishGroup, window, type Turn } from './support/summary-messages.js';

const aliases = { 'tg:1': 'Alice', 'tg:2': 'Alice' };

const summarize = (request: ReturnType<typeof window>, options: Parameters<typeof createExtractiveSummarizer>[0] = { identityAliases: aliases }): Promise<Summary> =>
  createExtractiveSummarizer(options).summarize(request);

const allText = (s: Summary): string => [s.summary, ...s.keyFacts].join('\n');

describe('extractive summarizer, English group chat', () => {
  it('is deterministic and answers what summarySchema accepts', async () => {
    const first = await summarize(window('group', englishGroup));
    const again = await summarize(window('group', englishGroup));
    expect(again).toEqual(first);
    expect(summarySchema().parse(first)).toEqual(first);
    expect(first.summary.length).toBeLessThanOrEqual(800);
  });

  it('names every speaker, never "user"', async () => {
    const s = await summarize(window('group', englishGroup));
    expect(s.summary).toMatch(/^Alice and Bob talked/);
    expect(s.summary).toContain('Alice: ');
    expect(s.summary).toContain('Bob: ');
    expect(allText(s)).not.toMatch(/\buser\b/i);
    expect(s.keyFacts.every((fact) => /^(Alice|Bob): /.test(fact))).toBe(true);
  });

  it('merges two platform ids of one person through identity aliases', async () => {
    const merged = await summarize(window('group', englishGroup));
    expect(merged.participants).toEqual(['Alice', 'Bob']);
    expect(merged.keyFacts).toContain('Alice: My cat Mochi comes with me.');
    const apart = await summarize(window('group', englishGroup), {});
    expect(apart.participants).toEqual(['Alice', 'Bob', 'Ally']);
    expect(apart.keyFacts).toContain('Ally: My cat Mochi comes with me.');
  });

  it('keeps the salient facts (job, date, city, pet, birthday, preference) and leaves small talk out', async () => {
    const s = await summarize(window('group', englishGroup));
    for (const fact of ['Spotify', 'March 3', 'Stockholm next month', 'Mochi', 'June 12', 'tea over coffee']) {
      expect(s.keyFacts.some((f) => f.includes(fact))).toBe(true);
    }
    expect(s.keyFacts.join(' ')).not.toMatch(/haha|Hey Bob/);
    expect(s.summary).toContain('Spotify');
    expect(s.topics[0]).toBe('Stockholm');
    expect(s.sentiment).toBe('positive');
  });

  it('rates a window of facts above small talk', async () => {
    const facts = await summarize(window('group', englishGroup));
    const chat = await summarize(window('group', [['a', 'Alice', 'hi'], ['b', 'Bob', 'hello there'], ['a', 'Alice', 'how are you?']]));
    expect(chat.keyFacts).toEqual([]);
    expect(facts.importance).toBeGreaterThan(chat.importance);
    expect(chat.importance).toBeGreaterThanOrEqual(0);
  });

  it('quotes at most maxSentences sentences', async () => {
    const s = await summarize(window('group', englishGroup), { identityAliases: aliases, maxSentences: 1 });
    expect(s.summary.match(/(Alice|Bob): /g)).toHaveLength(1);
    expect(() => createExtractiveSummarizer({ maxSentences: 0 })).toThrow(/maxSentences/);
  });
});

describe('extractive summarizer, Chinese group chat', () => {
  it('splits sentences without spaces and keeps the facts, attributed by name', async () => {
    const s = await summarize(window('group', chineseGroup));
    expect(s).toEqual(await summarize(window('group', chineseGroup)));
    expect(s.participants).toEqual(['小明', '小红']);
    expect(s.summary.startsWith('小明、小红聊了成都')).toBe(true);
    expect(s.keyFacts).toContain('小红：我的生日是12月5号，别忘了。');
    expect(s.keyFacts).toContain('小明：我喜欢吃辣的，成都火锅一定要吃。');
    expect(s.keyFacts.some((f) => f.includes('腾讯'))).toBe(true);
    expect(s.keyFacts.join('')).not.toContain('嗯嗯');
    expect(s.topics[0]).toBe('成都');
    expect(s.topics).toContain('火锅');
    expect(summarySchema().safeParse(s).success).toBe(true);
  });

  it('reads sentiment from the Chinese lexicon, with negation', async () => {
    const sad = await summarize(window('group', [['a', '阿强', '我今天很难过，工作压力太大了。'], ['b', '阿美', '别担心，我也不开心。']]));
    expect(sad.sentiment).toBe('negative');
    const mixed = await summarize(window('group', [['a', '阿强', '我很开心，但是也很累。']]));
    expect(mixed.sentiment).toBe('mixed');
  });
});

describe('extractive summarizer, private chat', () => {
  const turns: Turn[] = [
    [null, null, 'I like green tea and I live in Lisbon.'],
    [null, null, 'Noted! Lisbon is lovely.', 'assistant'],
  ];

  it('says "the user" when the user has no name, and drops the assistant from participants and facts', async () => {
    const s = await summarize(window('private', turns));
    expect(s.summary).toBe('The user talked with the assistant about Lisbon, green, tea, live. The user: I like green tea and I live in Lisbon.');
    expect(s.participants).toEqual([]);
    expect(s.keyFacts).toEqual(['The user: I like green tea and I live in Lisbon.']);
  });

  it("uses the user's name when it is known", async () => {
    const named = turns.map(([, , content, role]): Turn => (role ? [null, null, content, role] : ['wx:9', 'Carol', content]));
    const s = await summarize(window('private', named));
    expect(s.participants).toEqual(['Carol']);
    expect(s.summary).toMatch(/^Carol talked with the assistant/);
    expect(allText(s)).not.toMatch(/\buser\b/i);
  });

  it('rejects a window without text, and an aborted call', async () => {
    await expect(summarize(window('private', [[null, null, '  '], [null, null, 'ignored', 'system']]))).rejects.toThrow(LlmProviderError);
    await expect(summarize(window('private', [[null, null, '...']]))).rejects.toThrow(/nothing to summarize/);
    const controller = new AbortController();
    controller.abort();
    await expect(createExtractiveSummarizer().summarize(window('private', turns), controller.signal)).rejects.toThrow(/abort/i);
  });
});

describe('identity aliases', () => {
  it('resolve a sender to the alias of its id, else its name, else its id', () => {
    expect(resolveSender({ senderId: 'tg:2', senderName: 'Ally' }, aliases)).toBe('Alice');
    expect(resolveSender({ senderId: 'tg:3', senderName: ' Alicia ' }, aliases)).toBe('Alicia');
    expect(resolveSender({ senderId: 'tg:3', senderName: null }, aliases)).toBe('tg:3');
    expect(resolveSender({ senderId: null, senderName: null }, aliases)).toBeNull();
    expect(participantsOf(window('group', englishGroup).messages, aliases)).toEqual(['Alice', 'Bob']);
  });
});
