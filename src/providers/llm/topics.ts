import nodejieba from 'nodejieba';
import { atomKey } from '../../projections/atoms.js';
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

const runs = /(\p{Script=Han}+)|((?:(?!\p{Script=Han})[\p{L}\p{N}])(?:(?!\p{Script=Han})[\p{L}\p{N}'’-])*)/gu;

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
  for (const match of sentence.normalize('NFKC').matchAll(runs)) {
    const [, cjk, word] = match;
    if (cjk !== undefined) {
      for (const w of nodejieba.cut(cjk)) if (Array.from(w).length >= 2 && !chineseStopWords.has(w) && !filler.has(w)) out.push({ key: w, surface: w, name: false });
    } else if (word !== undefined && word.length >= 3 && !/^\d+$/.test(word) && !filler.has(word.toLowerCase())) {
      const key = tokenize(word)[0];
      const name = match.index > 0 && /^\p{Lu}/u.test(word);
      if (key !== undefined && !filler.has(key)) out.push({ key, surface: name ? word : word.toLowerCase(), name });
    }
  }
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
  const han = [...byKey.values()].filter((c) => /\p{Script=Han}/u.test(c.key));
  const inside = new Map(han.map((c) => [c, han.filter((o) => o !== c && o.key.includes(c.key)).reduce((sum, o) => sum + o.weight, 0)]));
  for (const [c, extra] of inside) c.weight += extra;
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
