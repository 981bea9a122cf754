import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine } from '../src/engine/engine.js';
import type { Conversation, Turn } from './bench/locomo/dataset.js';
import { ingestPipeline, quotes, turnMessage } from './bench/locomo/ingest-pipeline.js';
import { benchEnvironment, sourceTurnIds } from './bench/locomo/pipeline.js';
import { tempDir } from './support/engine.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const day1 = Date.UTC(2023, 4, 8, 13, 56);
const day2 = Date.UTC(2023, 4, 25, 13, 14);
const turn = (session: number, n: number, speaker: string, text: string, at: number, blipCaption: string | null = null): Turn => ({
  diaId: `D${session}:${n}`, speaker, text, blipCaption, session, dateTime: new Date(at).toISOString(), at,
});

/** Two sittings two weeks apart, in the shape dataset.ts reads from locomo10.json. */
const conversation: Conversation = {
  id: 'conv-t',
  speakers: ['Caroline', 'Melanie'],
  turns: [
    turn(1, 1, 'Caroline', 'I went to the LGBTQ support group yesterday. It was so powerful.', day1),
    turn(1, 2, 'Melanie', 'That sounds great! I painted a sunrise at the lake last week.', day1, 'a painting of a sunset over a lake'),
    turn(1, 3, 'Caroline', 'I am researching adoption agencies, I want to be a mom.', day1),
    turn(2, 1, 'Melanie', 'We went camping in the mountains with the kids on Friday.', day2),
    turn(2, 2, 'Caroline', 'I passed the adoption agency interviews last Friday!', day2),
  ],
  questions: [{ index: 0, question: 'When did Caroline pass the adoption interviews?', answer: 'last Friday', category: 2, evidence: ['D2:2'] }],
  skipped: { inCategories: 1, emptyEvidence: 0, invalidEvidence: 0, noValidEvidence: 0 },
};

async function open() {
  const temp = tempDir();
  const env = benchEnvironment('t', day1);
  const engine = await createMemoryEngine(loadConfig({ overrides: { dataDir: temp.dir, sqlite: { synchronous: 'NORMAL' } } }), { env, maintenance: false });
  cleanups.push(async () => {
    await engine.close();
    temp.remove();
  });
  return { engine, env };
}

describe('LoCoMo pipeline ingest', () => {
  it('records every turn as a user message of its speaker, at its session date, with the turn id as message id', async () => {
    const { engine, env } = await open();
    await ingestPipeline(engine, conversation, env);
    const messages = engine.indexes.conversations.messages('conv-t');
    expect(messages.map((m) => [m.messageId, m.role, m.senderName])).toEqual(conversation.turns.map((t) => [t.diaId, 'user', t.speaker]));
    expect(messages.map((m) => m.sentAt)).toEqual([day1, day1 + 60_000, day1 + 120_000, day2, day2 + 60_000].map((ms) => new Date(ms).toISOString()));
    expect(messages[1]?.content).toBe('That sounds great! I painted a sunrise at the lake last week. [image: a painting of a sunset over a lake]');
  });

  it('summarizes the whole backlog: one memory per sitting, whose sources are its turn ids', async () => {
    const { engine, env } = await open();
    const { memoryOf, figure } = await ingestPipeline(engine, conversation, env);
    expect(engine.indexes.conversations.session('conv-t')?.lastSummarizedIndex).toBe(5);
    expect(figure).toMatchObject({ memories: 2, turns: 5, sources: 2.5, uncovered: 0, evidence: 1 });
    const first = memoryOf.get('D1:1') ?? '';
    const second = memoryOf.get('D2:1') ?? '';
    expect(first).not.toBe(second);
    expect(sourceTurnIds(engine, first)).toEqual(['D1:1', 'D1:2', 'D1:3']);
    expect(sourceTurnIds(engine, second)).toEqual(['D2:1', 'D2:2']);
    expect(figure.maxChars).toBeLessThanOrEqual(800);
  });

  it('counts a turn as quoted only when its memory holds one of its sentences', () => {
    expect(quotes('Caroline: I passed the adoption agency interviews last Friday!', 'Yes! I passed the adoption agency interviews last Friday! So happy.')).toBe(true);
    expect(quotes('Caroline and Melanie talked about adoption.', 'I passed the adoption agency interviews last Friday!')).toBe(false);
    expect(quotes('Melanie: Wow! Great.', 'Wow! Great.')).toBe(false);
    expect(turnMessage(conversation.turns[0] as Turn)).toBe('I went to the LGBTQ support group yesterday. It was so powerful.');
  });
});
