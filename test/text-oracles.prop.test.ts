import fc from 'fast-check';
import nodejieba from 'nodejieba';
import { describe, expect, it } from 'vitest';
import { capitalisedRuns } from '../src/extraction/scan.js';
import { splitClauses } from '../src/extraction/atoms.js';
import { atomKey } from '../src/projections/atoms.js';
import { forEachRun } from '../src/projections/text/chars.js';
import { cutMixed } from '../src/projections/text/jieba.js';
import { tokenize } from '../src/projections/text/tokenizer.js';
import { hashFeatures } from '../src/providers/embeddings/hash.js';
import { finished, splitSentences } from '../src/providers/llm/sentences.js';
import { hanRun, topicRunRules } from '../src/providers/llm/topics.js';
import { injectionClose, injectionOpen, stripInjection } from '../src/queries/recall/format.js';
import * as old from './support/regex-oracles.js';

// Pieces of every script and shape the passes care about: runs, marks, quotes, breaks, tags.
const pieces = [
  'a', 'B', 'y', 'Alice', 'New York', "O'Neil", 'Bob’s', 'x-ray', '_', '1', '3.14', 'c++', 'C#', 'AT&T', 'é', 'e\u0301', 'ß', 'İ', 'Ω',
  '记忆', '南京市长江大桥', '的', '我们', '茶', '〇', '々', '⺀', 'カタ', 'ー', 'ひら', '한국', '😀', '👍🏽', '𝐀', '\u0301', '\u200d',
  ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\u2028', '\ufeff', '.', '. ', '!', '?', '？', '。', '！', '；', ';', '…', '"', '”', '’', '」', '）',
  ',', '-', "'", '#', '&', '+', '\ud800', '\udc00', injectionOpen, injectionClose, '<', '>',
];
const text = fc.array(fc.constantFrom(...pieces), { maxLength: 24 }).map((parts) => parts.join(''));
const runsOf = (s: string) => {
  const out: { run: string; han: boolean; index: number }[] = [];
  const normal = s.normalize('NFKC');
  forEachRun(normal, topicRunRules, (kind, start, end) => out.push({ run: normal.slice(start, end), han: kind === hanRun, index: start }));
  return out;
};
const runs = { numRuns: 3000 };

describe('linear text passes give what their regex forms gave', () => {
  it('tokenize', () => fc.assert(fc.property(text, (s) => { expect(tokenize(s)).toEqual(old.oldTokenize(s)); }), runs));
  it('atomKey', () => fc.assert(fc.property(text, (s) => { expect(atomKey(s)).toBe(old.oldAtomKey(s)); }), runs));
  it('splitClauses', () => fc.assert(fc.property(text, (s) => { expect(splitClauses(s)).toEqual(old.oldSplitClauses(s)); }), runs));
  it('capitalised name runs', () => fc.assert(fc.property(text, (s) => { expect(capitalisedRuns(s)).toEqual(old.oldCapitalisedRuns(s)); }), runs));
  it('splitSentences and finished', () =>
    fc.assert(
      fc.property(text, (s) => {
        const sentences = splitSentences(s);
        expect(sentences).toEqual(old.oldSplitSentences(s));
        for (const sentence of sentences) expect(finished(sentence, 1000) === sentence.text).toBe(old.oldEndsFinished(sentence.text));
      }),
      runs,
    ));
  it('stripInjection', () =>
    fc.assert(fc.property(text, (s) => { expect(stripInjection(s)).toBe(old.oldStripInjection(s, injectionOpen, injectionClose)); }), runs));
  it('topic runs', () => fc.assert(fc.property(text, (s) => { expect(runsOf(s)).toEqual(old.oldTopicRuns(s)); }), runs));
  it('hash embedding features', () => fc.assert(fc.property(text, (s) => { expect(hashFeatures(s)).toEqual(old.oldHashFeatures(s)); }), runs));

  it("jieba's mixed cut of ASCII, without jieba, is jieba's", () => {
    const ascii = fc.array(fc.oneof(fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)), fc.constantFrom('c++', 'C#', 'c#', 'AT&T', '3.1.4', 'x86_64')), { maxLength: 30 });
    fc.assert(fc.property(ascii, (parts) => { expect(cutMixed(parts.join(''))).toEqual(nodejieba.cut(parts.join(''), true)); }), { numRuns: 20_000 });
  });
});
