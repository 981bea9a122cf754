import { atomKey } from '../projections/atoms.js';
import { isClass, space } from '../projections/text/chars.js';

/*
 * The scans of the extraction rules over a whole memory text, written as loops: a regex over the
 * text (`/\b[A-Z]…(?:\s+[A-Z]…)*\/g` found names) overflowed V8's backtracking stack on a
 * long run. Each gives what the regex named in its comment gave.
 */

const clauseBreaks = new Set([...'。！？；!?;\n\r…']);
const isSpaceAt = (text: string, i: number): boolean => i < text.length && isClass(text.charCodeAt(i), space);

/** Sentences and clauses: split on 。！？；!?; newlines, and a full stop followed by space or the end (`/[。！？；!?;\n\r…]+|\.(?=\s|$)/u`). */
export function splitClauses(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const char = text.charAt(i);
    if (clauseBreaks.has(char)) {
      pieces.push(text.slice(start, i));
      while (i < text.length && clauseBreaks.has(text.charAt(i))) i += 1;
      start = i;
    } else if (char === '.' && (i + 1 === text.length || isSpaceAt(text, i + 1))) {
      pieces.push(text.slice(start, i));
      i += 1;
      start = i;
    } else i += 1;
  }
  pieces.push(text.slice(start));
  return pieces.map((s) => s.trim()).filter((s) => atomKey(s).length > 0);
}

const isUpper = (c: number): boolean => c >= 65 && c <= 90;
const isAsciiLetter = (c: number): boolean => isUpper(c) || (c >= 97 && c <= 122);
const isWordChar = (c: number): boolean => isAsciiLetter(c) || (c >= 48 && c <= 57) || c === 95;
const isNameChar = (c: number): boolean => isAsciiLetter(c) || c === 39 || c === 0x2019 || c === 45;

/** The end of `[A-Z][A-Za-z'’-]*` starting at `i`. */
function capitalWordEnd(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length && isNameChar(text.charCodeAt(j))) j += 1;
  return j;
}

/** Runs of capitalised words separated by whitespace, each starting at a word boundary (`/\b[A-Z][A-Za-z'’-]*(?:\s+[A-Z][A-Za-z'’-]*)*\/g`), as their words. */
export function capitalisedRuns(text: string): string[][] {
  const runs: string[][] = [];
  let i = 0;
  while (i < text.length) {
    if (!isUpper(text.charCodeAt(i)) || (i > 0 && isWordChar(text.charCodeAt(i - 1)))) {
      i += 1;
      continue;
    }
    const words: string[] = [];
    let end = capitalWordEnd(text, i);
    words.push(text.slice(i, end));
    for (;;) {
      let next = end;
      while (isSpaceAt(text, next)) next += 1;
      if (next === end || next >= text.length || !isUpper(text.charCodeAt(next))) break;
      const wordEnd = capitalWordEnd(text, next);
      words.push(text.slice(next, wordEnd));
      end = wordEnd;
    }
    runs.push(words);
    i = end;
  }
  return runs;
}
