import { classifyClause } from '../../extraction/atoms.js';
import { tokenize } from '../../projections/text/tokenizer.js';
import type { Sentence } from './sentences.js';

/*
 * Cheap, deterministic signals of the extractive summarizer: how fact-like a sentence is, the
 * window's sentiment from a small Chinese and English lexicon, and its importance.
 */

const number = /\d|[一二三四五六七八九十两百千万]+(?:岁|月|号|日|年|天|周|个|只|点|块|元|公斤|公里)/u;
const dateWords =
  /生日|纪念日|周年|[一二三四五六七八九十]+月|星期[一二三四五六日天]|周[一二三四五六日末]|\b(?:birthday|anniversary|january|february|march|april|june|july|august|september|october|november|december|jan|feb|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b|\bmay\s+\d/iu;
// Lasting changes and conditions of a person's life, which rarely come with a number or a name.
const lifeEvent =
  /过敏|素食|吃素|怀孕|结婚|订婚|离婚|退休|毕业|领养|取名|搬家|辞职|入职|升职|\b(?:allergic|vegetarian|vegan|diabetic|pregnant|married|engaged|divorced|retired|graduated|adopted|named|called|moved|quit|hired|promoted)\b/iu;
// A capitalised word that does not open the sentence and is not "I": most likely a name or a place.
const innerName = /(?<=[\p{L}\p{N},;:]\s+)(?!I\b|I['’])\p{Lu}[\p{L}'’-]+/u;

/** The atom classifier's verdict, as a fact signal: preferences, relations and lasting facts count; plans and episodes only when firm and not small talk. */
function classified(text: string, words: number): boolean {
  const { atomType, confidence } = classifyClause(text);
  if (atomType === 'plan' || atomType === 'episode') return confidence >= 0.85 && words >= 4;
  return atomType !== 'unknown' && confidence >= 0.75;
}

/**
 * 0 for small talk; each signal adds one: a number or quantity, a date word, a life event or
 * condition, a name inside the sentence, the atom classifier (see `classified`). Questions ask
 * rather than tell and single words say nothing: both score 0; a name in a greeting of two words
 * ("Hey Bob!") and "see you tomorrow" are no facts either.
 */
export function factScore(sentence: Sentence): number {
  const text = sentence.text;
  const words = tokenize(text).length;
  if (sentence.question || words < 2) return 0;
  return [number.test(text), dateWords.test(text), lifeEvent.test(text), words >= 3 && innerName.test(text), classified(text, words)].filter(Boolean).length;
}

const positiveEn =
  'love loved loving like liked great happy glad excited exciting wonderful amazing awesome good nice fun enjoy enjoyed thanks thank congrats congratulations beautiful excellent proud relaxed perfect yay delicious lovely fantastic';
const negativeEn =
  'sad angry hate hated terrible awful bad worried worry upset tired sick annoyed frustrated stressed sorry disappointed lonely afraid scared cry cried fail failed lost pain hurt boring horrible anxious';
const positiveZh = '开心 高兴 喜欢 快乐 太好了 很棒 不错 满意 兴奋 感谢 谢谢 幸福 漂亮 好玩 期待 顺利 恭喜 好吃 舒服 爱';
const negativeZh = '难过 伤心 生气 讨厌 糟糕 烦 累 担心 害怕 失望 痛苦 郁闷 焦虑 生病 压力 孤独 哭 失败 遗憾 无聊 难受';

const words = (list: string): string[] => list.split(' ');
const enPattern = (list: string): RegExp => new RegExp(`(\\b(?:not|never|no|don'?t|didn'?t|isn'?t|wasn'?t|aren'?t)\\s+)?\\b(?:${words(list).join('|')})\\b`, 'giu');
const zhPattern = (list: string): RegExp => new RegExp(`([不没]|没有)?(?:${words(list).join('|')})`, 'gu');

const lexicon = [
  { pattern: enPattern(positiveEn), positive: true },
  { pattern: enPattern(negativeEn), positive: false },
  { pattern: zhPattern(positiveZh), positive: true },
  { pattern: zhPattern(negativeZh), positive: false },
];

/** `positive`, `negative`, `neutral`, or `mixed` when neither side has twice the other's hits; a negation ("not", 不) flips a hit. */
export function sentimentOf(texts: readonly string[]): 'positive' | 'negative' | 'neutral' | 'mixed' {
  let positive = 0;
  let negative = 0;
  for (const text of texts) {
    for (const { pattern, positive: isPositive } of lexicon) {
      for (const match of text.matchAll(pattern)) {
        if (isPositive !== (match[1] !== undefined)) positive += 1;
        else negative += 1;
      }
    }
  }
  if (positive === 0 && negative === 0) return 'neutral';
  if (positive >= 2 * negative) return 'positive';
  if (negative >= 2 * positive) return 'negative';
  return 'mixed';
}

const emphasis = /[!！]|重要|记住|别忘|一定要|必须|紧急|\b(?:important|remember|don'?t forget|must|urgent|never forget)\b/giu;

/**
 * In [0, 1], two decimals: 0.15, plus 0.08 per key fact (up to five), up to 0.15 for length
 * (full at 1,500 characters), 0.05 per emphasis ("!", "important", 重要, 记住; up to three).
 */
export function importanceOf(keyFacts: number, texts: readonly string[]): number {
  const chars = texts.reduce((sum, text) => sum + text.length, 0);
  const emphatic = texts.reduce((sum, text) => sum + (text.match(emphasis)?.length ?? 0), 0);
  const score = 0.15 + 0.08 * Math.min(5, keyFacts) + 0.15 * Math.min(1, chars / 1500) + 0.05 * Math.min(3, emphatic);
  return Math.round(Math.min(1, Math.max(0, score)) * 100) / 100;
}
