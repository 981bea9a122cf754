import type { SummaryMessage, SummaryRequest } from '../../src/providers/llm/provider.js';

/** [senderId, senderName, content] or with a role; times one minute apart from `start`. */
export type Turn = readonly [string | null, string | null, string, SummaryMessage['role']?];

/** A summary request from compact turns. */
export function window(chatType: SummaryRequest['chatType'], turns: readonly Turn[], start = '2026-03-01T10:00:00.000Z'): SummaryRequest {
  const t0 = Date.parse(start);
  return {
    sessionId: `${chatType}-session`,
    chatType,
    messages: turns.map(([senderId, senderName, content, role], index) => ({
      messageId: `m${index}`,
      index,
      role: role ?? 'user',
      senderId,
      senderName,
      content,
      at: new Date(t0 + index * 60_000).toISOString(),
    })),
  };
}

export const englishGroup: readonly Turn[] = [
  ['tg:1', 'Alice', 'Hey Bob! Guess what, I got the job at Spotify. I start on March 3.'],
  ['wx:b', 'Bob', 'Congrats! That is great news. Are you moving to Stockholm?'],
  ['tg:2', 'Ally', 'Yes, I move to Stockholm next month. My cat Mochi comes with me.'],
  ['wx:b', 'Bob', 'I love Stockholm. My birthday is on June 12, you should visit.'],
  ['tg:1', 'Alice', 'haha ok'],
  ['wx:b', 'Bob', 'I prefer tea over coffee, by the way.'],
];

export const chineseGroup: readonly Turn[] = [
  ['qq:1', '小明', '我下个月要去成都旅游，大概五天。'],
  ['qq:2', '小红', '太好了！成都的火锅很好吃。我的生日是12月5号，别忘了。'],
  ['qq:1', '小明', '我喜欢吃辣的，成都火锅一定要吃。'],
  ['qq:2', '小红', '我最近换工作了，现在在腾讯做产品经理，压力有点大。'],
  ['qq:1', '小明', '嗯嗯'],
];
