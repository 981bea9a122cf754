import { stemmer } from 'stemmer';
import { allOf, cjkLetter, forEachRun, isClass, letterOrDigit, mark, widthAt, type RunRules } from './chars.js';
import { cutWords } from './jieba.js';
import { englishStopWords, isChineseStopWord } from './stopwords.js';

/*
 * The one tokenizer of keyword search: documents are indexed and queries are parsed by the same
 * function, so a query token matches exactly when the same token was made from the memory text.
 * Tokens hold only letters, digits and combining marks, and are stored space-separated in FTS5,
 * whose unicode61 tokenizer (configured in `ftsTokenizeOption`) then keeps each one whole.
 * Linear in time and stack on any input: runs are found by one scan (`forEachRun`), never by a
 * regex over the whole text, and no list is spread into a call.
 */

/** The FTS5 `tokenize` option of every table that stores `toFtsDocument` output. */
export const ftsTokenizeOption = `"unicode61 remove_diacritics 0 categories 'L* N* Co M*'"`;

const cjkRun = 1;
const wordRun = 2;

/** A run of CJK letters; or any other letter or digit, then letters, digits and combining marks. */
const runRules: RunRules = {
  opens: (cp) => (isClass(cp, cjkLetter) ? cjkRun : isClass(cp, letterOrDigit) ? wordRun : 0),
  extends: (kind, cp) =>
    kind === cjkRun ? isClass(cp, cjkLetter) : !isClass(cp, cjkLetter) && (isClass(cp, letterOrDigit) || isClass(cp, mark)),
};

/** Longer words are kept as they are: Porter stemming of a word this long means nothing, and its regexes would need a deep stack. */
const maxStemmedLength = 1_000_000;

/** jieba's words (without stop words), then the run's character bigrams jieba did not already give. */
function pushCjkTokens(run: string, tokens: string[]): void {
  const given = new Set<string>();
  for (const word of cutWords(run)) {
    if (!allOf(word, cjkLetter) || isChineseStopWord(word)) continue;
    given.add(word);
    tokens.push(word);
  }
  const first = run.codePointAt(0) ?? 0;
  if (widthAt(first) === run.length) {
    if (!given.has(run) && !isChineseStopWord(run)) tokens.push(run);
    return;
  }
  let previous = 0;
  let at = widthAt(first);
  while (at < run.length) {
    const width = widthAt(run.codePointAt(at) ?? 0);
    const gram = run.slice(previous, at + width);
    if (!given.has(gram) && !isChineseStopWord(gram)) tokens.push(gram);
    previous = at;
    at += width;
  }
}

function wordToken(word: string): string | null {
  if (englishStopWords.has(word)) return null;
  if (word.length > maxStemmedLength) return word;
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
  const normal = text.normalize('NFKC').toLowerCase();
  forEachRun(normal, runRules, (kind, start, end) => {
    const run = normal.slice(start, end);
    if (kind === cjkRun) return pushCjkTokens(run, tokens);
    const token = wordToken(run);
    if (token) tokens.push(token);
  });
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
