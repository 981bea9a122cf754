import { describe, expect, it } from 'vitest';
import { classifyClause, clauseEntities, extractAtoms, splitClauses } from '../src/extraction/atoms.js';
import { entryText, extractGraph } from '../src/extraction/graph.js';
import { atomKey } from '../src/projections/atoms.js';
import { toFtsDocument, toFtsQuery, tokenize } from '../src/projections/text/tokenizer.js';
import { hashFeatures } from '../src/providers/embeddings/hash.js';
import { createExtractiveSummarizer } from '../src/providers/llm/extractive.js';
import { finished, splitSentences } from '../src/providers/llm/sentences.js';
import { factScore, importanceOf, sentimentOf } from '../src/providers/llm/signals.js';
import { topTerms } from '../src/providers/llm/topics.js';
import { injectionOpen, stripInjection } from '../src/queries/recall/format.js';

/*
 * Every text pass of the projections and the write path on multi-MiB inputs of several scripts,
 * called directly: none may overflow the stack (a 10 MiB word did, in the FTS tokenizer's regex)
 * or take quadratic time (the suite's timeout catches that). Texts jieba reads (CJK) are smaller:
 * jieba itself takes seconds per MiB.
 */

const MiB = 1024 * 1024;
const fill = (unit: string, length: number): string => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

/** Shapes without CJK: each overflowed or was quadratic somewhere before. */
const plainOf = (size: number): Record<string, string> => ({
  'one letter': fill('y', size),
  'one word with a suffix': `${fill('ab', size)}ational`,
  'combining marks': `e${fill('\u0301', size)}`,
  emoji: fill('😀', size),
  'capitalised words': fill('Aa ', size),
  whitespace: fill(' ', size),
  'line breaks': fill('\r\n', size),
  'full stops': fill('. ', size),
  terminators: fill('!', size),
  digits: fill('1', size),
  'spaces before an injection tag': `${fill(' ', size)}x${injectionOpen}`,
});
/** Shapes jieba cuts: jieba itself takes seconds per MiB. */
const cjkOf = (size: number): Record<string, string> => ({
  Han: fill('记忆', size),
  kana: fill('カタ', size),
  Hangul: fill('한국', size),
  mixed: fill('Alice 喜欢 tea 😀 é\u0301 ١٢ カ 한 ', size),
});
// The projections' scans over a whole memory text at 10 MiB (issue 11's case 1, a store written before
// the bounds); the other passes at 1 MiB, the most a message may hold; CJK at 512 KiB.
// LIVINGMEMORY_TEXT_SCALE=10 runs everything ten times larger.
const scale = Number(process.env.LIVINGMEMORY_TEXT_SCALE ?? 1);
const huge = plainOf(10 * MiB * scale);
const plain = plainOf(MiB * scale);
const cjk = cjkOf((MiB / 2) * scale);
const shapes = { ...plain, ...cjk };
// A quadratic pass on these sizes would run for hours: a generous limit keeps a busy machine from failing it.
const limit = 300_000;

function survives(name: string, pass: (text: string) => unknown, inputs: Record<string, string> = shapes): void {
  it(`${name}: no stack overflow, no quadratic time`, async () => {
    for (const [shape, text] of Object.entries(inputs)) {
      await expect(Promise.resolve().then(() => pass(text)), `${name} on ${shape}`).resolves.not.toThrow();
    }
  }, limit);
}

const sentence = (text: string) => ({ text, question: false, chinese: false });
const memory = (text: string) => ({ memoryId: 'm', text, importance: 0.5, sessionId: null, personaId: null, participants: ['Alice'], topics: ['tea'], keyFacts: [] });
const summarizer = createExtractiveSummarizer();
const window = (content: string) => ({
  sessionId: 's', chatType: 'private' as const,
  messages: [{ messageId: 'x', index: 0, role: 'user' as const, senderId: null, senderName: null, content, at: '2024-01-01T00:00:00Z' }],
});

describe('text passes are linear in time and stack', () => {
  survives('tokenize', tokenize, { ...huge, ...cjk });
  survives('toFtsDocument and toFtsQuery', (t) => [toFtsDocument(t), toFtsQuery(t)], plain);
  survives('atomKey', atomKey, { ...huge, ...cjk });
  survives('splitClauses', splitClauses);
  survives('classifyClause', classifyClause, plain);
  survives('clauseEntities', (t) => clauseEntities(t, ['Alice']), { ...shapes, 'capitalised words': huge['capitalised words'] ?? '' });
  survives('extractAtoms', (t) => extractAtoms(memory(t), '2024-01-01T00:00:00.000Z', (n) => `a${n}`));
  survives('extractGraph and entryText', (t) => [extractGraph(memory(t)), entryText(memory(t))], plain);
  survives('splitSentences and finished', (t) => splitSentences(t).map((s) => finished(s, 200)));
  survives('factScore, sentimentOf, importanceOf', (t) => [factScore(sentence(t)), sentimentOf([t]), importanceOf(1, [t])], plain);
  survives('topTerms', (t) => topTerms([{ text: t, weight: 1 }], 6, 3, new Set()));
  survives('stripInjection', stripInjection, plain);
  // The provider cuts its input to maxInputChars first; the features are linear past that too.
  survives('hash embedding features', hashFeatures, { ...cjkOf((MiB / 4) * scale), ...plainOf((MiB / 4) * scale) });
  // A window of nothing but punctuation has nothing to summarize: that is a clean refusal, not a crash.
  survives('the extractive summarizer', (t) => summarizer.summarize(window(t)).catch((e: Error) => expect(e.message).toContain('nothing to summarize')));

  it('the summary of a window with one huge word is still a valid summary', async () => {
    const summary = await summarizer.summarize(window(`Alice said ${fill('y', MiB)} today.`));
    expect(summary.topics.every((t) => t.length <= 500)).toBe(true);
  });
});
