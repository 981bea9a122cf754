import nodejieba from 'nodejieba';
import { stemmer } from 'stemmer';
import { englishStopWords, isChineseStopWord } from '../../src/projections/text/stopwords.js';

/*
 * The regex forms the linear text passes replaced (as they were before issue 11), kept only as
 * oracles: on inputs short enough for them, the scans must give exactly what these gave.
 */

const cjkLetter = String.raw`(?:(?=[\p{L}\p{N}])[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC])`;
const otherLetter = String.raw`(?:(?!${cjkLetter})[\p{L}\p{N}])`;
const runs = new RegExp(String.raw`(${cjkLetter}+)|(${otherLetter}(?:${otherLetter}|\p{M})*)`, 'gu');
const cjkWord = new RegExp(String.raw`^${cjkLetter}+$`, 'u');

export function oldTokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const [, cjk, word] of text.normalize('NFKC').toLowerCase().matchAll(runs)) {
    if (cjk !== undefined) {
      const words = nodejieba.cut(cjk).filter((w) => cjkWord.test(w) && !isChineseStopWord(w));
      const chars = Array.from(cjk);
      const grams = chars.length === 1 ? chars : chars.slice(1).map((char, i) => `${chars[i] ?? ''}${char}`);
      const given = new Set(words);
      tokens.push(...words, ...grams.filter((g) => !given.has(g) && !isChineseStopWord(g)));
    } else if (word !== undefined && !englishStopWords.has(word)) tokens.push(stemmer(word) || word);
  }
  return tokens;
}

export const oldAtomKey = (content: string): string => content.normalize('NFKC').toLowerCase().replace(/[\p{P}\p{S}\p{Z}\s]+/gu, '');

export const oldSplitClauses = (text: string): string[] =>
  text
    .split(/[。！？；!?;\n\r…]+|\.(?=\s|$)/u)
    .map((s) => s.trim())
    .filter((s) => oldAtomKey(s).length > 0);

export const oldCapitalisedRuns = (text: string): string[][] =>
  (text.match(/\b[A-Z][A-Za-z'’-]*(?:\s+[A-Z][A-Za-z'’-]*)*/g) ?? []).map((run) => run.split(/\s+/));

const boundary = /(?<=[。！？!?])(?![。！？!?"”’」』）)])|(?<=[。！？!?]["”’」』）)])|(?<=\.)(?=\s)|[\r\n]+/u;

export const oldSplitSentences = (text: string) =>
  text
    .split(boundary)
    .map((part) => part.trim())
    .filter((part) => /[\p{L}\p{N}]/u.test(part))
    .map((part) => ({ text: part, question: /[?？]["”’」』）)]?$/u.test(part), chinese: /\p{Script=Han}/u.test(part) }));

export const oldEndsFinished = (text: string): boolean => /[。！？!?.…]["”’」』）)]?$/u.test(text);

export function oldStripInjection(text: string, open: string, close: string): string {
  if (!text.includes(open)) return text;
  const fragment = new RegExp(`\\s*${open}[\\s\\S]*?(?:${close.replace('/', '\\/')}|$)\\s*`, 'g');
  return text.replace(fragment, (match, offset: number) => (offset === 0 || offset + match.length === text.length ? '' : '\n')).trim();
}

const topicRuns = /(\p{Script=Han}+)|((?:(?!\p{Script=Han})[\p{L}\p{N}])(?:(?!\p{Script=Han})[\p{L}\p{N}'’-])*)/gu;

/** The runs the topic candidates were read from: Han runs and other words, with where each starts. */
export const oldTopicRuns = (sentence: string): { run: string; han: boolean; index: number }[] =>
  [...sentence.normalize('NFKC').matchAll(topicRuns)].map((m) => ({ run: m[0], han: m[1] !== undefined, index: m.index }));

export function oldHashFeatures(text: string): string[] {
  const normalized = text.normalize('NFKC').toLowerCase();
  const features = nodejieba.cut(normalized, true).filter((t) => !/^[\s\p{P}\p{S}]+$/u.test(t)).map((t) => `w:${t}`);
  const chars = Array.from(normalized.replace(/[\s\p{P}\p{S}]+/gu, ''));
  for (const n of [2, 3]) for (let i = 0; i + n <= chars.length; i += 1) features.push(`${n}:${chars.slice(i, i + n).join('')}`);
  if (chars.length === 1) features.push(`1:${chars[0]}`);
  return features;
}
