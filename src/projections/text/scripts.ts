/*
 * Which writing systems a text is written in. An embedding model reads the scripts of its
 * vocabulary and nothing else: USE-lite, English only, maps every Chinese sentence to one vector.
 * Pure; no tokenizer involved, so it costs one pass over the characters.
 */

/** The scripts told apart; `Latin` covers English and the other Latin-script languages. */
export const scriptNames = ['Latin', 'Han', 'Kana', 'Hangul', 'Cyrillic', 'Greek', 'Arabic', 'Hebrew', 'Thai', 'Devanagari'] as const;
export type ScriptName = (typeof scriptNames)[number];

const patterns: Record<ScriptName, RegExp> = {
  Latin: /\p{Script=Latin}/u,
  Han: /\p{Script=Han}/u,
  Kana: /[\p{Script=Hiragana}\p{Script=Katakana}]/u,
  Hangul: /\p{Script=Hangul}/u,
  Cyrillic: /\p{Script=Cyrillic}/u,
  Greek: /\p{Script=Greek}/u,
  Arabic: /\p{Script=Arabic}/u,
  Hebrew: /\p{Script=Hebrew}/u,
  Thai: /\p{Script=Thai}/u,
  Devanagari: /\p{Script=Devanagari}/u,
};

/** SQLite GLOB character classes of each script's main block(s), for counting stored texts in SQL. */
export const scriptGlobs: Record<ScriptName, string> = {
  Latin: '[A-Za-zÀ-ɏ]',
  Han: '[一-鿿㐀-䶿]',
  Kana: '[぀-ヿ]',
  Hangul: '[가-힯ᄀ-ᇿ]',
  Cyrillic: '[Ѐ-ӿ]',
  Greek: '[Ͱ-Ͽ]',
  Arabic: '[؀-ۿ]',
  Hebrew: '[֐-׿]',
  Thai: '[฀-๿]',
  Devanagari: '[ऀ-ॿ]',
};

const letter = /\p{L}/u;

/** How many letters of each script the text holds (letters of other scripts are not counted). */
export function scriptCounts(text: string): Map<ScriptName, number> {
  const counts = new Map<ScriptName, number>();
  for (const char of text) {
    const code = char.charCodeAt(0);
    // ASCII first: most text is, and a regular expression per character is the cost here.
    if (code < 128) {
      if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) counts.set('Latin', (counts.get('Latin') ?? 0) + 1);
      continue;
    }
    if (!letter.test(char)) continue;
    const name = scriptNames.find((s) => patterns[s].test(char));
    if (name) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

/**
 * The share of the text's letters written in `scripts`, in [0, 1]. Each Han character counts as
 * much as a whole Latin word (about five letters), since it carries about as much meaning. A
 * text without letters (numbers, punctuation) gives 1: nothing in it is out of reach.
 */
export function scriptShare(text: string, scripts: ReadonlySet<ScriptName>): number {
  let inside = 0;
  let all = 0;
  for (const [name, n] of scriptCounts(text)) {
    const weight = name === 'Han' || name === 'Kana' || name === 'Hangul' ? 5 : 1;
    all += weight * n;
    if (scripts.has(name)) inside += weight * n;
  }
  return all === 0 ? 1 : inside / all;
}
