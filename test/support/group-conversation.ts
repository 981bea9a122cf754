import type { SummaryMessage } from '../../src/providers/llm/provider.js';
import { assistantReplies, factLines, smallTalk, type FactLine, type Language, type Person } from './group-conversation-lines.js';

/*
 * A deterministic three-day group chat between Alice and Bob: bursts of messages (15 to 120 s
 * apart) separated by quiet gaps of 90 to 180 minutes, and nights between the days. Each person
 * writes from two platform accounts (odd bursts use the second), and nine facts are told, three a
 * day, each followed by the other person's reaction. Same options, same conversation. `hostTurns`
 * adds the assistant's replies, for tests that drive the conversation through the host hooks.
 */

export type { FactLine, Language, Person } from './group-conversation-lines.js';

export interface GroupConversationOptions {
  /** Seeds the small talk, the speakers' turns and the times; default 7. */
  readonly seed?: number;
  /** Default 'en'. */
  readonly language?: Language;
  /** Default 100 (300 turns in all). */
  readonly turnsPerDay?: number;
  /** Default 4. */
  readonly burstsPerDay?: number;
  /** The first day, `YYYY-MM-DD` (UTC); default 2026-03-02. */
  readonly firstDay?: string;
}

/** A fact as it was told: its line, and the message that told it. */
export interface StatedFact extends FactLine {
  readonly messageId: string;
  readonly index: number;
  readonly at: string;
  readonly senderId: string;
}

/** One burst of messages: turns `first` to `last` (inclusive) of `day`. */
export interface Burst {
  readonly day: 1 | 2 | 3;
  readonly first: number;
  readonly last: number;
}

export interface GroupConversation {
  readonly sessionId: string;
  readonly chatType: 'group';
  readonly language: Language;
  readonly turns: readonly SummaryMessage[];
  readonly facts: readonly StatedFact[];
  readonly bursts: readonly Burst[];
  /** Every platform account -> the person's name (both accounts of each person). */
  readonly identityAliases: Readonly<Record<string, Person>>;
}

/** Messages within a burst are at most this far apart; bursts are further apart than 90 minutes. */
export const maxGapInBurstMs = 120_000;
export const minQuietGapMs = 90 * 60_000;

export const groupAccounts: Readonly<Record<Person, readonly [{ id: string; name: string }, { id: string; name: string }]>> = {
  Alice: [
    { id: 'tg:1001', name: 'Alice' },
    { id: 'wx:alice_w', name: 'Ally' },
  ],
  Bob: [
    { id: 'tg:1002', name: 'Bob' },
    { id: 'qq:88', name: 'Bobby' },
  ],
};

/** mulberry32: a small seeded generator, so the conversation never depends on Math.random. */
function seeded(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const other = (p: Person): Person => (p === 'Alice' ? 'Bob' : 'Alice');

type Line = { readonly speaker: Person | null; readonly text: string; readonly fact?: FactLine };

/** Small talk with each fact of the burst and its reaction inserted at seeded places. */
function burstLines(size: number, facts: readonly FactLine[], talk: readonly string[], rand: (n: number) => number): Line[] {
  const lines: Line[] = Array.from({ length: size - 2 * facts.length }, () => ({ speaker: null, text: talk[rand(talk.length)] ?? '' }));
  for (const fact of facts) {
    const at = 1 + rand(Math.max(1, lines.length - 1));
    lines.splice(at, 0, { speaker: fact.speaker, text: fact.text, fact }, { speaker: other(fact.speaker), text: fact.reaction });
  }
  return lines;
}

/** The conversation, its facts and bursts; see the file comment. */
export function generateGroupConversation(options: GroupConversationOptions = {}): GroupConversation {
  const language = options.language ?? 'en';
  const turnsPerDay = options.turnsPerDay ?? 100;
  const burstsPerDay = options.burstsPerDay ?? 4;
  const rand = seeded(options.seed ?? 7);
  const talk = smallTalk(language);
  const turns: SummaryMessage[] = [];
  const facts: StatedFact[] = [];
  const bursts: Burst[] = [];
  for (const day of [1, 2, 3] as const) {
    const dayFacts = factLines(language).filter((f) => f.day === day);
    let t = Date.parse(`${options.firstDay ?? '2026-03-02'}T08:30:00.000Z`) + (day - 1) * 86_400_000 + rand(30) * 60_000;
    for (let b = 0; b < burstsPerDay; b += 1) {
      const size = Math.floor(turnsPerDay / burstsPerDay) + (b < turnsPerDay % burstsPerDay ? 1 : 0);
      const mine = dayFacts.filter((_, k) => k % burstsPerDay === b);
      if (size < 2 * mine.length + 1) throw new RangeError(`turnsPerDay ${turnsPerDay} is too few for ${burstsPerDay} bursts with facts`);
      if (b > 0) t += minQuietGapMs + rand(91) * 60_000;
      const account = (bursts.length % 2) as 0 | 1;
      let speaker: Person = rand(2) === 0 ? 'Alice' : 'Bob';
      const first = turns.length;
      for (const line of burstLines(size, mine, talk, rand)) {
        speaker = line.speaker ?? (rand(10) < 7 ? other(speaker) : speaker);
        const { id, name } = groupAccounts[speaker][account];
        const message: SummaryMessage = { messageId: `g${turns.length}`, index: turns.length, role: 'user', senderId: id, senderName: name, content: line.text, at: new Date(t).toISOString() };
        turns.push(message);
        if (line.fact) facts.push({ ...line.fact, messageId: message.messageId, index: message.index, at: message.at, senderId: id });
        t += 15_000 + rand(106) * 1000;
      }
      bursts.push({ day, first, last: turns.length - 1 });
    }
  }
  const identityAliases: Record<string, Person> = {};
  for (const person of ['Alice', 'Bob'] as const) for (const { id } of groupAccounts[person]) identityAliases[id] = person;
  return { sessionId: `group-alice-bob-${language}`, chatType: 'group', language, turns, facts, bursts, identityAliases };
}

/** A person's message as the host passes it before the LLM call, and the assistant's reply after it, if any. */
export interface HostTurn {
  readonly message: SummaryMessage;
  readonly reply: { readonly messageId: string; readonly content: string; readonly at: string } | null;
}

/** Each reply comes this long after the message it answers, well before the next message (15 s at least). */
const replyDelayMs = 5_000;

/**
 * The conversation as a host sees it: the assistant answers every `replyEvery`-th message of a
 * burst and the last one, so each burst ends with a round and the summary threshold is reached
 * within a day. Replies are acknowledgements (no fact), in the conversation's language.
 */
export function hostTurns(conversation: GroupConversation, replyEvery = 5): HostTurn[] {
  const replies = assistantReplies(conversation.language);
  const lastOfBurst = new Set(conversation.bursts.map((b) => b.last));
  return conversation.turns.map((message, n) => {
    const answered = (n + 1) % replyEvery === 0 || lastOfBurst.has(n);
    const reply = { messageId: `r${n}`, content: replies[n % replies.length] ?? '', at: new Date(Date.parse(message.at) + replyDelayMs).toISOString() };
    return { message, reply: answered ? reply : null };
  });
}
