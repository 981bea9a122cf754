import { han, isClass, letterOrDigit, someOf, space } from '../../projections/text/chars.js';

/** One sentence of a message, with what the summarizer needs to know about its shape. */
export interface Sentence {
  readonly text: string;
  readonly question: boolean;
  /** Holds Han characters: written and joined the Chinese way. */
  readonly chinese: boolean;
}

const terminators = new Set([...'。！？!?']);
const closers = new Set([...'"”’」』）)']);
const isBreak = (char: string): boolean => char === '\r' || char === '\n';

/**
 * Where a sentence boundary at `q` ends, or -1, as the regex
 * `(?<=[。！？!?])(?![。！？!?"”’」』）)])|(?<=[。！？!?]["”’」』）)])|(?<=\.)(?=\s)|[\r\n]+` would
 * match there: after a terminator (not inside a run of them, not before a closing quote), after a
 * terminator and its closing quote, after a full stop before a space, or over a run of line breaks.
 */
function boundaryAt(text: string, q: number): number {
  const previous = text.charAt(q - 1);
  const current = text.charAt(q);
  if (q > 0 && terminators.has(previous) && !terminators.has(current) && !closers.has(current)) return q;
  if (q > 1 && closers.has(previous) && terminators.has(text.charAt(q - 2))) return q;
  if (previous === '.' && q < text.length && isClass(text.charCodeAt(q), space)) return q;
  if (!isBreak(current)) return -1;
  let end = q;
  while (end < text.length && isBreak(text.charAt(end))) end += 1;
  return end;
}

/** String.prototype.split's walk over the boundaries, in one pass: a regex split overflowed on long runs. */
function splitOnBoundaries(text: string): string[] {
  if (text.length === 0) return [''];
  const parts: string[] = [];
  let p = 0;
  let q = 0;
  while (q < text.length) {
    const end = boundaryAt(text, q);
    if (end < 0 || end === p) {
      q += 1;
      continue;
    }
    parts.push(text.slice(p, q));
    p = end;
    q = p;
  }
  parts.push(text.slice(p));
  return parts;
}

/** Whether the text ends with one of `marks`, or with one of them and a closing quote. */
function endsWithMark(text: string, marks: ReadonlySet<string>): boolean {
  const last = text.charAt(text.length - 1);
  return marks.has(last) || (closers.has(last) && marks.has(text.charAt(text.length - 2)));
}

const questionMarks = new Set([...'?？']);
const sentenceEnds = new Set([...'。！？!?.…']);

/** Splits a message into sentences on 。！？!?, a full stop before a space, and newlines; no whitespace is assumed between Chinese words. */
export function splitSentences(text: string): Sentence[] {
  return splitOnBoundaries(text)
    .map((part) => part.trim())
    .filter((part) => someOf(part, letterOrDigit))
    .map((part) => ({ text: part, question: endsWithMark(part, questionMarks), chinese: someOf(part, han) }));
}

/** The sentence with closing punctuation, cut to `max` characters (never inside a surrogate pair). */
export function finished(sentence: Sentence, max: number): string {
  const chars = Array.from(sentence.text);
  if (chars.length > max) return `${chars.slice(0, max - 1).join('')}…`;
  if (endsWithMark(sentence.text, sentenceEnds)) return sentence.text;
  return `${sentence.text}${sentence.chinese ? '。' : '.'}`;
}
