/** One sentence of a message, with what the summarizer needs to know about its shape. */
export interface Sentence {
  readonly text: string;
  readonly question: boolean;
  /** Holds Han characters: written and joined the Chinese way. */
  readonly chinese: boolean;
}

// After 。！？!? (not inside a run of them), after a full stop followed by space, and at line breaks.
const boundary = /(?<=[。！？!?])(?![。！？!?"”’」』）)])|(?<=[。！？!?]["”’」』）)])|(?<=\.)(?=\s)|[\r\n]+/u;
const hasWord = /[\p{L}\p{N}]/u;
const han = /\p{Script=Han}/u;

/** Splits a message into sentences on 。！？!?, a full stop before a space, and newlines; no whitespace is assumed between Chinese words. */
export function splitSentences(text: string): Sentence[] {
  return text
    .split(boundary)
    .map((part) => part.trim())
    .filter((part) => hasWord.test(part))
    .map((part) => ({ text: part, question: /[?？]["”’」』）)]?$/u.test(part), chinese: han.test(part) }));
}

/** The sentence with closing punctuation, cut to `max` characters (never inside a surrogate pair). */
export function finished(sentence: Sentence, max: number): string {
  const chars = Array.from(sentence.text);
  if (chars.length > max) return `${chars.slice(0, max - 1).join('')}…`;
  if (/[。！？!?.…]["”’」』）)]?$/u.test(sentence.text)) return sentence.text;
  return `${sentence.text}${sentence.chinese ? '。' : '.'}`;
}
