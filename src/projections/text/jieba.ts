import { createRequire } from 'node:module';

/*
 * The one way into nodejieba. Its dictionary takes about 2.5 s to load, on the first cut, so the
 * module is required here on first use only, and text without Chinese never reaches it: a CLI
 * call that tokenizes, extracts or hash-embeds only English text does not pay for it.
 */

type Jieba = typeof import('nodejieba');

const require = createRequire(import.meta.url);
let loaded: Jieba | null = null;

function jieba(): Jieba {
  loaded ??= require('nodejieba') as Jieba;
  return loaded;
}


/** Loads the dictionary now rather than at the first Chinese text (a second of a blocked event loop). */
export function warmJieba(): void {
  jieba().cut('记忆');
}

/** jieba's dictionary cut (no HMM), for runs of Chinese (and other CJK) text. */
export const cutWords = (text: string): string[] => jieba().cut(text);

/** jieba's part-of-speech tagging, for text with Han characters. */
export const tagWords = (text: string): { word: string; tag: string }[] => jieba().tag(text);

// The ASCII words of jieba's dictionaries (jieba.dict.utf8; user.dict.utf8 has none), longest first.
const asciiDictWords = ['AT&T', 'c++', 'C++', 'c#', 'C#'];
const separators = new Set([' ', '\t', '\n']);
const isAscii = (text: string): boolean => {
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
};
const isLetter = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

function dictWordAt(text: string, i: number): string | undefined {
  return asciiDictWords.find((word) => text.startsWith(word, i));
}

/**
 * jieba's HMM step on ASCII: a letter and the letters and digits after it, a digit and the digits
 * and dots after it, else one character; a run stops where a dictionary word starts.
 */
function asciiRule(text: string, i: number): number {
  const first = text.charCodeAt(i);
  const takes = isLetter(first) ? (c: number) => isLetter(c) || isDigit(c) : isDigit(first) ? (c: number) => isDigit(c) || c === 46 : null;
  let j = i + 1;
  if (takes) while (j < text.length && takes(text.charCodeAt(j)) && !dictWordAt(text, j)) j += 1;
  return j;
}

/**
 * What `cut(text, true)` (jieba's mixed mode) gives for ASCII text, without jieba: separators
 * (space, tab, newline) alone, dictionary words whole, and the HMM step's rules between them.
 * No two ASCII dictionary words can overlap, so taking each where it starts is jieba's best path.
 */
function asciiCutHmm(text: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text.charAt(i);
    if (separators.has(char)) {
      words.push(char);
      i += 1;
      continue;
    }
    const word = dictWordAt(text, i);
    const next = word ? i + word.length : asciiRule(text, i);
    words.push(text.slice(i, next));
    i = next;
  }
  return words;
}

/** jieba's mixed-mode cut (`cut(text, true)`); ASCII text is cut the same way without loading jieba. */
export function cutMixed(text: string): string[] {
  return isAscii(text) ? asciiCutHmm(text) : jieba().cut(text, true);
}
