import { atomKey } from '../../projections/atoms.js';
import { forEachRun, han, isClass, letterOrDigit, someOf, upper, type RunRules } from '../../projections/text/chars.js';
import { cutWords } from '../../projections/text/jieba.js';
import { chineseStopWords } from '../../projections/text/stopwords.js';
import { tokenize } from '../../projections/text/tokenizer.js';

// Chat filler that says nothing about what a conversation was about.
const filler = new Set(
  (
    'yeah yes yep ok okay lol haha hey hi hello thanks thank sure really think know going get got want like well oh right good great ' +
    'nice maybe also one time today tomorrow yesterday thing things lot much cool let say said tell see sound sounds wow guess wait ' +
    'come go make need feel way bit pretty kind never mind back morning anyway hmm probably ' +
    '一只 一个 一些 一定 别忘了 下个月 上个月 最近 大概 有点 一点 上午 下午 晚上 今天上午 怎么样 算了 等等 总之 不错 随便 哈哈 哈哈哈 嗯嗯 好的 什么 怎么 现在 今天 明天 昨天 一下 知道 觉得 可以 没有 真的 就是 这个 那个 我们 你们 他们 时候 一起 还是 已经 应该'
  ).split(' '),
);

export const hanRun = 1;
const wordRun = 2;
const joiners = new Set([0x27, 0x2019, 0x2d]);
/** Han runs, and words: a letter or digit, then letters, digits, apostrophes and hyphens (none of them Han). */
export const topicRunRules: RunRules = {
  opens: (cp) => (isClass(cp, han) ? hanRun : isClass(cp, letterOrDigit) ? wordRun : 0),
  extends: (kind, cp) => (kind === hanRun ? isClass(cp, han) : !isClass(cp, han) && (isClass(cp, letterOrDigit) || joiners.has(cp))),
};
// A word longer than any label is no topic (and would make the summary invalid).
const maxTopicLength = 500;
const isDigits = (word: string): boolean => {
  for (let i = 0; i < word.length; i += 1) if (word.charCodeAt(i) < 48 || word.charCodeAt(i) > 57) return false;
  return word.length > 0;
};

interface Candidate {
  readonly key: string;
  surface: string;
  /** Capitalised inside a sentence somewhere: shown as written. */
  name: boolean;
  weight: number;
  readonly first: number;
}

/** Words worth naming as topics in one sentence: jieba's words of Han runs, other words by their stem. */
function candidates(sentence: string): { key: string; surface: string; name: boolean }[] {
  const out: { key: string; surface: string; name: boolean }[] = [];
  const normal = sentence.normalize('NFKC');
  forEachRun(normal, topicRunRules, (kind, start, end) => {
    const run = normal.slice(start, end);
    if (kind === hanRun) {
      for (const w of cutWords(run)) if (Array.from(w).length >= 2 && !chineseStopWords.has(w) && !filler.has(w)) out.push({ key: w, surface: w, name: false });
    } else if (run.length >= 3 && run.length <= maxTopicLength && !isDigits(run) && !filler.has(run.toLowerCase())) {
      const key = tokenize(run)[0];
      const name = start > 0 && isClass(run.codePointAt(0) ?? 0, upper);
      if (key !== undefined && !filler.has(key)) out.push({ key, surface: name ? run : run.toLowerCase(), name });
    }
  });
  return out;
}

/**
 * The window's weightiest content words: each distinct sentence adds its weight once to every word in it
 * (1 for small talk, more for fact-like sentences), ties go to the earlier word; words of one plain
 * sentence fill the list only up to `minimum`. English words are grouped by stem and shown
 * lower case unless capitalised inside a sentence somewhere (a name).
 * `exclude` holds lower-case words never to list (the participants' names).
 */
export function topTerms(sentences: readonly { text: string; weight: number }[], limit: number, minimum: number, exclude: ReadonlySet<string>): string[] {
  const byKey = new Map<string, Candidate>();
  const said = new Set<string>();
  sentences.forEach(({ text, weight }, position) => {
    // A sentence said again ("any plans for tonight?") adds nothing the first one did not.
    if (said.has(atomKey(text))) return;
    said.add(atomKey(text));
    const seen = new Set<string>();
    for (const { key, surface, name } of candidates(text)) {
      if (exclude.has(surface.toLowerCase()) || seen.has(key)) continue;
      seen.add(key);
      const found = byKey.get(key);
      if (!found) byKey.set(key, { key, surface, name, weight, first: position });
      else {
        found.weight += weight;
        if (name && !found.name) Object.assign(found, { surface, name });
      }
    }
  });
  // jieba cuts 成都旅游 whole: a Chinese word also gains the weight of the longer words holding it.
  for (const [c, extra] of weightInside([...byKey.values()].filter((c) => someOf(c.key, han)))) c.weight += extra;
  const chosen: string[] = [];
  for (const c of [...byKey.values()].sort((a, b) => b.weight - a.weight || a.first - b.first)) {
    if (chosen.length >= limit || (c.weight <= 1 && chosen.length >= minimum)) break;
    // 成都旅游 beside 成都 names no new topic.
    const word = c.surface.toLowerCase();
    if (chosen.some((t) => t.toLowerCase().includes(word) || word.includes(t.toLowerCase()))) continue;
    chosen.push(c.surface);
  }
  return chosen;
}

/**
 * For each Chinese candidate, the weight of the other candidates whose key holds its key. jieba's
 * dictionary words are short, so each key's substrings are looked up, not every pair compared.
 */
function weightInside(hanCandidates: readonly Candidate[]): Map<Candidate, number> {
  const byKey = new Map(hanCandidates.map((c) => [c.key, c]));
  const extra = new Map(hanCandidates.map((c) => [c, 0]));
  for (const holder of hanCandidates) {
    const inner = new Set<string>();
    if (holder.key.length > 64) {
      for (const c of hanCandidates) if (holder.key.includes(c.key)) inner.add(c.key);
    } else {
      for (let i = 0; i < holder.key.length; i += 1) for (let j = i + 1; j <= holder.key.length; j += 1) inner.add(holder.key.slice(i, j));
    }
    for (const key of inner) {
      const c = byKey.get(key);
      if (c && c !== holder) extra.set(c, (extra.get(c) ?? 0) + holder.weight);
    }
  }
  return extra;
}
