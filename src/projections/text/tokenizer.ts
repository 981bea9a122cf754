import nodejieba from 'nodejieba';
import { stemmer } from 'stemmer';
import { chineseStopWords, englishStopWords } from './stopwords.js';

/*
 * The one tokenizer of keyword search: documents are indexed and queries are parsed by the same
 * function, so a query token matches exactly when the same token was made from the memory text.
 * Tokens hold only letters, digits and combining marks, and are stored space-separated in FTS5,
 * whose unicode61 tokenizer (configured in `ftsTokenizeOption`) then keeps each one whole.
 */

// A letter or digit of Han, kana or Hangul (ー, the katakana length mark, is filed under Common).
const cjkLetter = String.raw`(?:(?=[\p{L}\p{N}])[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC])`;
// Any other letter or digit; a run of them may carry combining marks after its first character.
const otherLetter = String.raw`(?:(?!${cjkLetter})[\p{L}\p{N}])`;
const runs = new RegExp(String.raw`(${cjkLetter}+)|(${otherLetter}(?:${otherLetter}|\p{M})*)`, 'gu');
const cjkWord = new RegExp(String.raw`^${cjkLetter}+$`, 'u');

/** The FTS5 `tokenize` option of every table that stores `toFtsDocument` output. */
export const ftsTokenizeOption = `"unicode61 remove_diacritics 0 categories 'L* N* Co M*'"`;

/** jieba's words (without stop words), then the run's character bigrams jieba did not already give. */
function cjkTokens(run: string): string[] {
  const words = nodejieba.cut(run).filter((word) => cjkWord.test(word) && !chineseStopWords.has(word));
  const chars = Array.from(run);
  const grams = chars.length === 1 ? chars : chars.slice(1).map((char, i) => `${chars[i] ?? ''}${char}`);
  const given = new Set(words);
  return [...words, ...grams.filter((gram) => !given.has(gram) && !chineseStopWords.has(gram))];
}

function wordToken(word: string): string | null {
  if (englishStopWords.has(word)) return null;
  return stemmer(word) || word;
}

/**
 * NFKC, lowercase, then runs of CJK letters and runs of other letters/digits. A CJK run gives
 * jieba's words and its character bigrams (one character gives itself), so a query matches even
 * where jieba cuts it differently from the memory; any other run is one Porter-stemmed word.
 * Stop words of both languages are dropped. Deterministic: same text, same tokens, same order.
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.normalize('NFKC').toLowerCase().matchAll(runs)) {
    const [, cjk, word] = match;
    if (cjk !== undefined) tokens.push(...cjkTokens(cjk));
    else if (word !== undefined) {
      const token = wordToken(word);
      if (token) tokens.push(token);
    }
  }
  return tokens;
}

/** What the `tokens` column of an FTS table holds for a text. */
export function toFtsDocument(text: string): string {
  return tokenize(text).join(' ');
}

/** An FTS5 MATCH expression: any of the text's distinct tokens, each as a quoted string; null when none. */
export function toFtsQuery(text: string): string | null {
  const distinct = [...new Set(tokenize(text))];
  if (distinct.length === 0) return null;
  return distinct.map((token) => `"${token.replaceAll('"', '""')}"`).join(' OR ');
}
