/*
 * Character classes for the text passes that run inside projections and the write path. A regex
 * over a whole text can overflow V8's backtracking stack on a long run (a 4 MiB word did), so
 * these passes scan code points themselves and ask only about one code point at a time, here.
 * Each answer is the same single-character regex the passes used before, cached per code point.
 */

const known = 1;
export const letterOrDigit = 2;
export const mark = 4;
/** A letter or digit of Han, kana or Hangul, or ー (the katakana length mark, filed under Common). */
export const cjkLetter = 8;
/** Any code point of the Han script (letters, radicals, ideographic numbers). */
export const han = 16;
/** What `\s` matches. */
export const space = 32;
/** Punctuation, symbols and separators: what `atomKey` drops. */
export const punctuation = 64;
export const upper = 128;

const tests: readonly (readonly [number, RegExp])[] = [
  [letterOrDigit, /^[\p{L}\p{N}]$/u],
  [mark, /^\p{M}$/u],
  [cjkLetter, /^(?=[\p{L}\p{N}])[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30FC]$/u],
  [han, /^\p{Script=Han}$/u],
  [space, /^\s$/u],
  [punctuation, /^[\p{P}\p{S}\p{Z}\s]$/u],
  [upper, /^\p{Lu}$/u],
];

const bmp = new Uint8Array(0x10000);
const astral = new Map<number, number>();

function compute(codePoint: number): number {
  const char = String.fromCodePoint(codePoint);
  let flags = known;
  for (const [flag, test] of tests) if (test.test(char)) flags |= flag;
  return flags;
}

/** The class bits of one code point. */
export function classOf(codePoint: number): number {
  if (codePoint < 0x10000) {
    let flags = bmp[codePoint] ?? 0;
    if (flags === 0) bmp[codePoint] = flags = compute(codePoint);
    return flags;
  }
  let flags = astral.get(codePoint);
  if (flags === undefined) astral.set(codePoint, (flags = compute(codePoint)));
  return flags;
}

export const isClass = (codePoint: number, flag: number): boolean => (classOf(codePoint) & flag) !== 0;

/** UTF-16 code units the code point at `i` takes (2 for a surrogate pair). */
export const widthAt = (codePoint: number): number => (codePoint > 0xffff ? 2 : 1);

/** True when every code point of a non-empty text has `flag`. */
export function allOf(text: string, flag: number): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i) ?? 0;
    if (!isClass(cp, flag)) return false;
    i += widthAt(cp);
  }
  return true;
}

/** True when some code point of the text has `flag`. */
export function someOf(text: string, flag: number): boolean {
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i) ?? 0;
    if (isClass(cp, flag)) return true;
    i += widthAt(cp);
  }
  return false;
}

/** How a run grows: which code points open one (its kind, or 0), and which extend a run of a kind. */
export interface RunRules {
  opens(codePoint: number): number;
  extends(kind: number, codePoint: number): boolean;
}

/**
 * Calls `each` for every maximal run of the text, left to right: a run opens on a code point the
 * rules give a kind, and takes every following code point that extends that kind. Code points
 * that open nothing are skipped. One pass, no recursion, no regex.
 */
export function forEachRun(text: string, rules: RunRules, each: (kind: number, start: number, end: number) => void): void {
  let i = 0;
  while (i < text.length) {
    const first = text.codePointAt(i) ?? 0;
    const kind = rules.opens(first);
    if (kind === 0) {
      i += widthAt(first);
      continue;
    }
    const start = i;
    i += widthAt(first);
    while (i < text.length) {
      const cp = text.codePointAt(i) ?? 0;
      if (!rules.extends(kind, cp)) break;
      i += widthAt(cp);
    }
    each(kind, start, i);
  }
}

/** The text without the code points that have `flag`. */
export function without(text: string, flag: number): string {
  const parts: string[] = [];
  let kept = 0;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i) ?? 0;
    const width = widthAt(cp);
    if (isClass(cp, flag)) {
      if (i > kept) parts.push(text.slice(kept, i));
      kept = i + width;
    }
    i += width;
  }
  if (kept === 0) return text;
  parts.push(text.slice(kept));
  return parts.join('');
}
